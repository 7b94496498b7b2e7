/**
 * OTLP/gRPC TraceService/Export (Python and Go SDKs default to it). Request
 * bytes are handed to the same pipeline as OTLP/HTTP protobuf; grpc-js handles
 * gzip message compression.
 */
import * as grpc from "@grpc/grpc-js";
import { encodeExportResponse } from "@crux/otlp";
import { apiKeyFromHeaders, type Authenticator } from "@crux/runtime";
import { classifyIngestError, type IngestFailure } from "./errors.ts";
import type { IngestPipeline } from "./ingest.ts";

export const EXPORT_METHOD_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

const passThrough = (b: Buffer) => b;
const traceService: grpc.ServiceDefinition = {
  Export: {
    path: EXPORT_METHOD_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: passThrough,
    requestDeserialize: passThrough,
    responseSerialize: passThrough,
    responseDeserialize: passThrough,
  },
};

const GRPC_STATUS: Record<IngestFailure["kind"], grpc.status> = {
  bad_request: grpc.status.INVALID_ARGUMENT,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  too_large: grpc.status.RESOURCE_EXHAUSTED,
  unsupported_media_type: grpc.status.INVALID_ARGUMENT,
  overloaded: grpc.status.UNAVAILABLE,
  unavailable: grpc.status.UNAVAILABLE,
};

export interface GrpcReceiverOptions {
  pipeline: IngestPipeline;
  authenticate: Authenticator;
  maxBodyBytes: number;
  onError?: (err: unknown) => void;
}

export function buildGrpcReceiver(opts: GrpcReceiverOptions) {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": opts.maxBodyBytes,
    "grpc.max_send_message_length": 4 * 1024 * 1024,
  });
  server.addService(traceService, {
    Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      void handleExport(call).then((result) => {
        if (result.ok) return callback(null, result.response);
        const failure = result.failure;
        const metadata = new grpc.Metadata();
        if (failure.kind === "overloaded" || failure.kind === "unavailable") metadata.set("retry-after", String(failure.retryAfterSeconds));
        callback({ code: GRPC_STATUS[failure.kind], details: failure.message, metadata });
      });
    },
  });

  type ExportResult = { ok: true; response: Buffer } | { ok: false; failure: IngestFailure };

  async function handleExport(call: grpc.ServerUnaryCall<Buffer, Buffer>): Promise<ExportResult> {
    const meta = (name: string) => {
      const v = call.metadata.get(name)[0];
      return typeof v === "string" ? v : v?.toString();
    };
    try {
      const auth = await opts.authenticate(apiKeyFromHeaders(meta));
      if (!auth.ok) return { ok: false, failure: { kind: "unauthenticated", message: auth.reason } };
      const outcome = await opts.pipeline.ingest(call.request, "protobuf", auth.projectId);
      const partial = outcome.rejectedSpans > 0 || outcome.rejectionMessage ? { rejectedSpans: outcome.rejectedSpans, errorMessage: outcome.rejectionMessage } : undefined;
      return { ok: true, response: Buffer.from(encodeExportResponse("protobuf", partial)) };
    } catch (err) {
      const failure = classifyIngestError(err);
      if (failure.kind === "unavailable") opts.onError?.(err);
      return { ok: false, failure };
    }
  }

  return {
    /** Resolves with the bound port (useful with port 0 in tests). */
    listen(host: string, port: number): Promise<number> {
      return new Promise((resolve, reject) =>
        server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
      );
    },
    close(): Promise<void> {
      return new Promise((resolve) => server.tryShutdown(() => resolve()));
    },
    forceClose() {
      server.forceShutdown();
    },
  };
}
