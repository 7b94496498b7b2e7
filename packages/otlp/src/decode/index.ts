/**
 * OTLP trace request decoding (protobuf and JSON) and response encoding.
 * Pure: bytes in, plain objects out (docs/engineering.md §1).
 */
import { Buffer, isAscii } from "node:buffer";
import { PermanentError } from "@crux/core";
import { DecodeContext, type DecodeResult, type OtlpFormat } from "./common.ts";
import { JsonShapeError, describe } from "./json-values.ts";
import { decodeJsonRequest } from "./json.ts";
import { defaultDecodeLimits, type DecodeLimits } from "./limits.ts";
import { decodeProtobufRequest } from "./protobuf.ts";
import { WireError } from "./wire.ts";

export type { DecodeLimits } from "./limits.ts";
export { defaultDecodeLimits } from "./limits.ts";
export type { DecodeResult, OtlpFormat } from "./common.ts";
export { encodeExportResponse, encodeRpcStatus } from "./response.ts";

/**
 * Body text for JSON.parse: invalid UTF-8 becomes U+FFFD, a leading BOM is
 * skipped (JSON.parse rejects it). Most bodies are pure ASCII (JSON escapes
 * non-ASCII text as \uXXXX in many SDKs); those are copied as latin1, about
 * twice as fast as UTF-8 decoding, which costs more than JSON.parse itself.
 */
function jsonText(body: Uint8Array): string {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (isAscii(buf)) return buf.toString("latin1");
  const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  return buf.toString("utf8", start);
}

/** Error messages quote parser output; keep them short enough for a response body. */
const MAX_MESSAGE = 500;
function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

/**
 * Decodes an ExportTraceServiceRequest body. Spans with bad ids or timestamps
 * are rejected one by one (counted in the result); a body that cannot be
 * decoded as a whole throws PermanentError("invalid_request") and yields nothing.
 */
export function decodeExportRequest(body: Uint8Array, format: OtlpFormat, limits: DecodeLimits = defaultDecodeLimits): DecodeResult {
  const ctx = new DecodeContext(limits);
  if (format === "json") {
    let root: unknown;
    try {
      root = JSON.parse(jsonText(body));
    } catch (err) {
      throw new PermanentError("invalid_request", clip(`invalid JSON: ${(err as Error).message}`));
    }
    try {
      return ctx.result(decodeJsonRequest(root, ctx));
    } catch (err) {
      if (err instanceof JsonShapeError) {
        const where = err.path === "" ? "" : ` at ${err.path}`;
        throw new PermanentError("invalid_request", clip(`invalid OTLP/JSON${where}: ${err.message}`));
      }
      throw asPermanent(err, "OTLP/JSON");
    }
  }
  try {
    return ctx.result(decodeProtobufRequest(body, ctx));
  } catch (err) {
    if (err instanceof WireError) {
      throw new PermanentError("invalid_request", `invalid protobuf ExportTraceServiceRequest: ${err.message}`);
    }
    throw asPermanent(err, "protobuf");
  }
}

/**
 * Anything else thrown while walking a hostile body (e.g. RangeError from an
 * allocation it asked for) is still a property of the input, not of a
 * dependency: report it as permanent rather than retryable.
 */
function asPermanent(err: unknown, what: string): PermanentError {
  if (err instanceof PermanentError) return err;
  const message = err instanceof Error ? err.message : describe(err);
  return new PermanentError("invalid_request", clip(`undecodable ${what} request: ${message}`));
}
