/**
 * The OTLP trace protobuf schema, loaded once with protobufjs from the .proto
 * files bundled in packages/otlp/proto (field numbers follow the OTLP spec,
 * conventions.md §1.3). Reading those files at module load is part of loading
 * the code, not request I/O.
 *
 * The ingest hot path does not use these types to decode requests (decode/
 * has its own single-pass wire reader); they serve the response encoders,
 * the gRPC service definition and tests.
 */
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const protoFiles = ["otlp-trace.proto", "rpc-status.proto"].map((file) =>
  fileURLToPath(new URL(`../proto/${file}`, import.meta.url)),
);

/** Root holding the OTLP trace, common, resource and collector packages plus google.rpc.Status. */
export const otlpRoot: protobuf.Root = new protobuf.Root().loadSync(protoFiles, { keepCase: false });
otlpRoot.resolveAll();

export const ExportTraceServiceRequestType: protobuf.Type = otlpRoot.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
);
export const ExportTraceServiceResponseType: protobuf.Type = otlpRoot.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse",
);
export const TraceService: protobuf.Service = otlpRoot.lookupService(
  "opentelemetry.proto.collector.trace.v1.TraceService",
);
/** gRPC full method name of TraceService.Export. */
export const traceExportMethodPath = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
export const RpcStatusType: protobuf.Type = otlpRoot.lookupType("google.rpc.Status");
