/**
 * OTLP/gRPC TraceService/Export (Python and Go SDKs default to it). Request
 * bytes are handed to the same pipeline as OTLP/HTTP protobuf; grpc-js handles
 * gzip message compression.
 *
 * gRPC carries no body size ahead of the message, so admission is in two
 * steps: a call arriving while the receiver is starting, at the request limit,
 * above the backlog ceiling or with the in-flight byte budget already spent
 * is refused on its metadata, before grpc-js reads
 * its message; otherwise the message's size is added to the budget when it
 * has arrived, and refused if that passes the limit.
 */
import * as grpc from "@grpc/grpc-js";
import { encodeExportResponse } from "@crux/otlp";
import { apiKeyFromHeaders, type Authenticator } from "@crux/auth";
import type { ByteBudget, IntakeGate } from "./admission.ts";
import { classifyIngestError, type FailureKind, type IngestFailure } from "./errors.ts";
import type { ExportAttempt, IngestPipeline } from "./ingest.ts";
import type { ExportReporter } from "./reporting.ts";

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

// UNAVAILABLE is the code OTLP exporters always retry (RESOURCE_EXHAUSTED only with RetryInfo).
const GRPC_STATUS: Record<FailureKind, grpc.status> = {
  bad_request: grpc.status.INVALID_ARGUMENT,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  forbidden: grpc.status.PERMISSION_DENIED,
  too_large: grpc.status.RESOURCE_EXHAUSTED,
  unsupported_media_type: grpc.status.INVALID_ARGUMENT,
  throttled: grpc.status.UNAVAILABLE,
  overloaded: grpc.status.UNAVAILABLE,
  unavailable: grpc.status.UNAVAILABLE,
};

export interface GrpcReceiverOptions {
  pipeline: IngestPipeline;
  authenticate: Authenticator;
  maxBodyBytes: number;
  gate: IntakeGate;
  budget: ByteBudget;
  reporter: ExportReporter;
}

function statusOf(f: IngestFailure): grpc.StatusObject {
  const metadata = new grpc.Metadata();
  if (f.retryAfterSeconds !== undefined) metadata.set("retry-after", String(f.retryAfterSeconds));
  return { code: GRPC_STATUS[f.kind], details: f.message, metadata };
}

export function buildGrpcReceiver(opts: GrpcReceiverOptions) {
  function report(started: number, failure: IngestFailure | undefined, extra: { projectId?: string; attempt?: ExportAttempt; error?: unknown } = {}) {
    opts.reporter.finished({
      transport: "grpc",
      status: grpc.status[failure ? GRPC_STATUS[failure.kind] : grpc.status.OK]!,
      durationSeconds: (performance.now() - started) / 1000,
      failure,
      projectId: extra.projectId,
      spans: extra.attempt?.spans,
      error: extra.error,
    });
  }

  /** Refuses a call on its metadata, before its message is read, while nothing could be admitted anyway. */
  const admission: grpc.ServerInterceptor = (_method, call) => {
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const started = performance.now();
        let failure: IngestFailure | null = null;
        try {
          opts.gate.check();
          const refused = opts.pipeline.refusal();
          if (refused) throw refused;
          if (opts.budget.full) throw opts.budget.refusal();
        } catch (err) {
          failure = classifyIngestError(err);
        }
        if (!failure) return next(metadata);
        call.sendStatus(statusOf(failure));
        report(started, failure);
      })
      .build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  };

  const server = new grpc.Server({
    "grpc.max_receive_message_length": opts.maxBodyBytes,
    "grpc.max_send_message_length": 4 * 1024 * 1024,
    interceptors: [admission],
  });
  server.addService(traceService, {
    Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      void handleExport(call).then((result) => {
        if (result.ok) return callback(null, result.response);
        callback(statusOf(result.failure));
      });
    },
  });

  type ExportResult = { ok: true; response: Buffer } | { ok: false; failure: IngestFailure };

  async function handleExport(call: grpc.ServerUnaryCall<Buffer, Buffer>): Promise<ExportResult> {
    const started = performance.now();
    const meta = (name: string) => {
      const v = call.metadata.get(name)[0];
      return typeof v === "string" ? v : v?.toString();
    };
    const lease = opts.budget.lease();
    const attempt: ExportAttempt = {};
    let projectId: string | undefined;
    try {
      lease.grow(call.request.length);
      const auth = await opts.authenticate(apiKeyFromHeaders(meta), "ingest");
      if (!auth.ok) {
        const failure: IngestFailure = { kind: auth.failure, reason: auth.failure, message: auth.reason };
        report(started, failure);
        return { ok: false, failure };
      }
      projectId = auth.projectId;
      const outcome = await opts.pipeline.ingest(call.request, "protobuf", auth.projectId, attempt);
      const partial =
        outcome.rejectedSpans > 0 || outcome.rejectionMessage ? { rejectedSpans: outcome.rejectedSpans, errorMessage: outcome.rejectionMessage } : undefined;
      report(started, undefined, { projectId, attempt });
      return { ok: true, response: Buffer.from(encodeExportResponse("protobuf", partial)) };
    } catch (err) {
      const failure = classifyIngestError(err);
      report(started, failure, { projectId, attempt, error: err });
      return { ok: false, failure };
    } finally {
      lease.release();
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
