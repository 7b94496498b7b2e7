/**
 * Request-body decompression bounded on the OUTPUT size: zlib stops as soon as
 * the inflated data would pass maxBytes, so a gzip bomb is refused without
 * ever being inflated whole.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

export class BodyTooLargeError extends Error {
  override readonly name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`request body is larger than ${limit} bytes once decompressed`);
  }
}

export class BadEncodingError extends Error {
  override readonly name = "BadEncodingError";
}

export type ContentEncoding = "identity" | "gzip" | "deflate";

export function parseContentEncoding(header: string | undefined): ContentEncoding | null {
  const value = (header ?? "").trim().toLowerCase();
  if (value === "" || value === "identity") return "identity";
  if (value === "gzip" || value === "x-gzip") return "gzip";
  if (value === "deflate") return "deflate";
  return null;
}

export async function decompressBody(body: Buffer, encoding: ContentEncoding, maxBytes: number): Promise<Buffer> {
  if (encoding === "identity") {
    if (body.length > maxBytes) throw new BodyTooLargeError(maxBytes);
    return body;
  }
  const opts = { maxOutputLength: maxBytes };
  try {
    if (encoding === "gzip") return await gunzip(body, opts);
    try {
      return await inflate(body, opts);
    } catch (err) {
      // Some clients send raw deflate without the zlib header.
      if (isTooLarge(err)) throw err;
      return await inflateRaw(body, opts);
    }
  } catch (err) {
    if (isTooLarge(err)) throw new BodyTooLargeError(maxBytes);
    throw new BadEncodingError(`body is not valid ${encoding} data: ${(err as Error).message}`);
  }
}

function isTooLarge(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === "ERR_BUFFER_TOO_LARGE" || (err instanceof RangeError && /too large|maxOutputLength/i.test(err.message));
}
