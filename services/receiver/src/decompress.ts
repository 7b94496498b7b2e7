/**
 * Request-body decompression bounded on the OUTPUT size: zlib stops as soon as
 * the inflated data would pass maxBytes, so a gzip bomb is refused without
 * ever being inflated whole.
 */
import zlib from "node:zlib";
import type { ByteLease } from "./admission.ts";

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

/**
 * The inflated body. Every inflated chunk is added to `lease` as it arrives,
 * so a small compressed body that inflates to many megabytes is refused (429)
 * while it grows, not after.
 */
export async function decompressBody(body: Buffer, encoding: ContentEncoding, maxBytes: number, lease?: ByteLease): Promise<Buffer> {
  if (encoding === "identity") {
    if (body.length > maxBytes) throw new BodyTooLargeError(maxBytes);
    return body;
  }
  if (encoding === "gzip") return inflateBounded(zlib.createGunzip(INFLATE_OPTIONS), body, maxBytes, lease, "gzip");
  try {
    return await inflateBounded(zlib.createInflate(INFLATE_OPTIONS), body, maxBytes, lease, "deflate");
  } catch (err) {
    // Some clients send raw deflate without the zlib header.
    if (!(err instanceof BadEncodingError)) throw err;
    return inflateBounded(zlib.createInflateRaw(INFLATE_OPTIONS), body, maxBytes, lease, "deflate");
  }
}

const INFLATE_OPTIONS: zlib.ZlibOptions = { chunkSize: 64 * 1024 };

function inflateBounded(
  inflater: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw,
  input: Buffer,
  maxBytes: number,
  lease: ByteLease | undefined,
  what: string,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      lease?.shrink(total);
      inflater.destroy();
      reject(err);
    };
    inflater.on("data", (chunk: Buffer) => {
      if (settled) return;
      if (total + chunk.length > maxBytes) return fail(new BodyTooLargeError(maxBytes));
      try {
        lease?.grow(chunk.length);
      } catch (err) {
        return fail(err as Error);
      }
      total += chunk.length;
      chunks.push(chunk);
    });
    inflater.on("error", (err) => fail(new BadEncodingError(`body is not valid ${what} data: ${err.message}`)));
    inflater.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, total));
    });
    inflater.end(input);
  });
}
