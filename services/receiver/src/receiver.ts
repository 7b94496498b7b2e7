/**
 * The receiver as a unit: OTLP/HTTP and OTLP/gRPC over one ingest pipeline.
 * Built from explicit dependencies so main.ts, the all-in-one process and the
 * tests assemble it the same way.
 */
import type { Database } from "@crux/db";
import { defaultDecodeLimits } from "@crux/otlp";
import type { JobQueue } from "@crux/queue";
import { createAuthenticator } from "@crux/runtime";
import type { FastifyBaseLogger } from "fastify";
import type { ReceiverConfig } from "./config.ts";
import { describeError } from "./errors.ts";
import { buildGrpcReceiver } from "./grpc.ts";
import { buildHttpReceiver } from "./http.ts";
import { createIngestPipeline, type Logger } from "./ingest.ts";

export interface ReceiverDeps {
  database: Database;
  queue: JobQueue;
  config: ReceiverConfig;
  authRequired: boolean;
  log: Logger;
  /** Fastify logger options for the HTTP server (false in tests). */
  httpLogger?: boolean | object | FastifyBaseLogger;
}

export function createReceiver(deps: ReceiverDeps) {
  const { config } = deps;
  const pipeline = createIngestPipeline({
    database: deps.database,
    queue: deps.queue,
    limits: {
      ...defaultDecodeLimits,
      maxAttributesPerSpan: config.CRUX_MAX_ATTRIBUTES_PER_SPAN,
      maxAttributeValueLength: config.CRUX_MAX_ATTRIBUTE_VALUE_LENGTH,
      maxValueDepth: config.CRUX_MAX_VALUE_DEPTH,
    },
    settleDelayMs: config.CRUX_SETTLE_DELAY_MS,
    settleRootDelayMs: config.CRUX_SETTLE_ROOT_DELAY_MS,
    maxQueueDepth: config.CRUX_MAX_QUEUE_DEPTH,
    maxInFlight: config.CRUX_MAX_INFLIGHT_REQUESTS,
    log: deps.log,
  });
  const authenticate = createAuthenticator({ database: deps.database, required: deps.authRequired, defaultProjectId: config.CRUX_DEFAULT_PROJECT });
  const http = buildHttpReceiver({ pipeline, authenticate, maxBodyBytes: config.CRUX_MAX_BODY_BYTES, logger: deps.httpLogger ?? false });
  const grpc = buildGrpcReceiver({
    pipeline,
    authenticate,
    maxBodyBytes: config.CRUX_MAX_BODY_BYTES,
    onError: (err) => deps.log.error(describeError(err), "grpc ingest failed"),
  });

  return {
    http,
    pipeline,
    /** Starts both servers; returns the bound ports (port 0 picks a free one). */
    async listen(): Promise<{ httpPort: number; grpcPort: number }> {
      await http.listen({ host: config.CRUX_HOST, port: config.CRUX_OTLP_HTTP_PORT });
      const address = http.server.address();
      const httpPort = typeof address === "object" && address ? address.port : config.CRUX_OTLP_HTTP_PORT;
      const grpcPort = await grpc.listen(config.CRUX_HOST, config.CRUX_OTLP_GRPC_PORT);
      return { httpPort, grpcPort };
    },
    /** Stops intake; in-flight requests finish (their writes commit, their settle jobs are enqueued) before this resolves. */
    async close(): Promise<void> {
      await Promise.all([http.close(), grpc.close()]);
      await pipeline.drain();
    },
  };
}

export type Receiver = ReturnType<typeof createReceiver>;
