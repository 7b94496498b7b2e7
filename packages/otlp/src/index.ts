// Public surface of @crux/otlp: OTLP decoding and GenAI normalization, both pure.
export {
  decodeExportRequest,
  defaultDecodeLimits,
  encodeExportResponse,
  encodeRpcStatus,
  type DecodeLimits,
  type DecodeResult,
  type OtlpFormat,
} from "./decode/index.ts";
export { normalizeSpan, normalizeSpans, addContent } from "./normalize/index.ts";
