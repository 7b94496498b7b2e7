/**
 * The OTLP trace protobuf schema, loaded once with protobufjs from the .proto
 * files bundled in packages/otlp/proto (field numbers follow the OTLP spec,
 * docs/conventions.md §2.3). Reading those files at module load is part of loading
 * the code, not request I/O.
 *
 * The ingest hot path does not decode requests through these types (decode/
 * walks the wire once with protobufjs's Reader), but it takes every field
 * number it reads from them (decode/schema.ts), so these .proto files are the
 * single source of truth. They also serve the response encoders, the gRPC
 * service definition and tests.
 */
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const protoFiles = ["otlp-trace.proto", "rpc-status.proto"].map((file) => fileURLToPath(new URL(`../proto/${file}`, import.meta.url)));

/** Root holding the OTLP trace, common, resource and collector packages plus google.rpc.Status. */
const otlpRoot: protobuf.Root = new protobuf.Root().loadSync(protoFiles, { keepCase: false });
otlpRoot.resolveAll();

export const ExportTraceServiceRequestType: protobuf.Type = otlpRoot.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
export const ExportTraceServiceResponseType: protobuf.Type = otlpRoot.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");
export const RpcStatusType: protobuf.Type = otlpRoot.lookupType("google.rpc.Status");

const lookup = (name: string): protobuf.Type => otlpRoot.lookupType(name);
export const ResourceSpansType: protobuf.Type = lookup("opentelemetry.proto.trace.v1.ResourceSpans");
export const ScopeSpansType: protobuf.Type = lookup("opentelemetry.proto.trace.v1.ScopeSpans");
export const SpanType: protobuf.Type = lookup("opentelemetry.proto.trace.v1.Span");
export const SpanEventType: protobuf.Type = lookup("opentelemetry.proto.trace.v1.Span.Event");
export const SpanLinkType: protobuf.Type = lookup("opentelemetry.proto.trace.v1.Span.Link");
export const StatusType: protobuf.Type = lookup("opentelemetry.proto.trace.v1.Status");
export const ResourceType: protobuf.Type = lookup("opentelemetry.proto.resource.v1.Resource");
export const InstrumentationScopeType: protobuf.Type = lookup("opentelemetry.proto.common.v1.InstrumentationScope");
export const KeyValueType: protobuf.Type = lookup("opentelemetry.proto.common.v1.KeyValue");
export const AnyValueType: protobuf.Type = lookup("opentelemetry.proto.common.v1.AnyValue");
export const ArrayValueType: protobuf.Type = lookup("opentelemetry.proto.common.v1.ArrayValue");
export const KeyValueListType: protobuf.Type = lookup("opentelemetry.proto.common.v1.KeyValueList");
