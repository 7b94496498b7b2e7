/**
 * Response bodies of the OTLP trace endpoints (docs/conventions.md §2.4): an
 * ExportTraceServiceResponse on success / partial success, a google.rpc.Status
 * on 4xx/5xx, in the request's format.
 */
import { ExportTraceServiceResponseType, RpcStatusType } from "../proto.ts";
import type { OtlpFormat } from "./common.ts";

const utf8 = new TextEncoder();

/**
 * Full success when `partial` is absent (protobuf: 0 bytes, JSON: `{}`);
 * else partial_success with rejected_spans (int64, a decimal string in JSON) and error_message.
 */
export function encodeExportResponse(format: OtlpFormat, partial?: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  if (format === "json") {
    if (!partial) return utf8.encode("{}");
    return utf8.encode(
      JSON.stringify({
        partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage },
      }),
    );
  }
  if (!partial) return new Uint8Array(0);
  const message = ExportTraceServiceResponseType.create({
    partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage },
  });
  return ExportTraceServiceResponseType.encode(message).finish();
}

/** google.rpc.Status body for an error response. */
export function encodeRpcStatus(format: OtlpFormat, code: number, message: string): Uint8Array {
  if (format === "json") return utf8.encode(JSON.stringify({ code, message }));
  return RpcStatusType.encode(RpcStatusType.create({ code, message })).finish();
}
