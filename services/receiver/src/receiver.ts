/**
 * The receiver as a unit: OTLP/HTTP and OTLP/gRPC over one ingest pipeline.
 * Built from explicit dependencies so main.ts, the all-in-one process and the
 * tests assemble it the same way.
 */
import { bindHostOf } from "@crux/config";
import { describeStorageError, type Database } from "@crux/db";
import { createMetricsRegistry, createReadiness, type ReadinessProbe, type Registry } from "@crux/runtime";
import { defaultDecodeLimits } from "@crux/otlp";
import type { JobQueue } from "@crux/queue";
import { createAuthenticator } from "@crux/auth";
import type { FastifyBaseLogger } from "fastify";
import { ByteBudget, IntakeGate } from "./admission.ts";
import type { ReceiverConfig } from "./config.ts";
import { buildGrpcReceiver } from "./grpc.ts";
import { registerOpsRoutes } from "./http-ops.ts";
import { buildHttpReceiver } from "./http.ts";
import { createIngestPipeline, type Logger } from "./ingest.ts";
import { createReceiverMetrics } from "./metrics.ts";
import { createExportReporter } from "./reporting.ts";

export interface ReceiverDeps {
  database: Database;
  queue: JobQueue;
  /** The API port is read, when present, only for the hint of a 404 on an /api/ path. */
  config: ReceiverConfig & { CRUX_API_PORT?: number };
  authRequired: boolean;
  log: Logger;
  /** Fastify logger options or a pino instance for the HTTP server (false in tests). */
  httpLogger?: boolean | object | FastifyBaseLogger;
  /** Where the receiver's instruments go (the all-in-one process shares one); default a fresh registry. */
  registry?: Registry;
  /**
   * Start with exports refused (503 + Retry-After) for this reason, until
   * `intake.open()`: main.ts listens at once and opens once the database is
   * reachable and its schema checked. Default: open.
   */
  closedUntilReady?: string;
  /** Background reading interval of the settle queue's depth (default 1 s). */
  depthRefreshMs?: number;
  /** Window in which identical export failures are counted instead of logged (default 10 s). */
  failureLogWindowMs?: number;
}

export function createReceiver(deps: ReceiverDeps) {
  const { config } = deps;
  const registry = deps.registry ?? createMetricsRegistry();
  const metrics = createReceiverMetrics(registry);
  const gate = new IntakeGate(deps.closedUntilReady ?? null);
  const budget = new ByteBudget(config.CRUX_MAX_INFLIGHT_BYTES, (bytes) => metrics.inflightBytes.set(bytes));
  const reporter = createExportReporter({ log: deps.log, metrics, windowMs: deps.failureLogWindowMs });
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
    depthRefreshMs: deps.depthRefreshMs,
    metrics,
    log: deps.log,
  });
  const authenticate = createAuthenticator({ database: deps.database, required: deps.authRequired, defaultProjectId: config.CRUX_DEFAULT_PROJECT });
  const readiness: ReadinessProbe = createReadiness({
    intake: async () => {
      if (gate.closedReason !== null) throw new Error(gate.closedReason);
    },
    // The driver's error, not drizzle's "Failed query: <sql>" wrapper.
    database: () => deps.database.ping().catch((err: unknown) => Promise.reject(new Error(describeStorageError(err).message))),
    queue: () => deps.queue.ping(),
  });
  const transport = { pipeline, authenticate, maxBodyBytes: config.CRUX_MAX_BODY_BYTES, gate, budget, reporter };
  const http = buildHttpReceiver({ ...transport, logger: deps.httpLogger ?? false });
  registerOpsRoutes(http, { readiness, registry, apiPort: config.CRUX_API_PORT || undefined });
  const grpc = buildGrpcReceiver(transport);

  return {
    http,
    pipeline,
    registry,
    readiness,
    /** Exports are refused with 503 + Retry-After while closed (start-up); open() lets them in. */
    intake: gate,
    /** Request bytes held by requests in flight. */
    inflightBytes: () => budget.inUse,
    /** Starts both servers; returns the bound ports (port 0 picks a free one). */
    async listen(): Promise<{ httpPort: number; grpcPort: number }> {
      const host = bindHostOf(config.CRUX_HOST, deps.authRequired);
      await http.listen({ host, port: config.CRUX_OTLP_HTTP_PORT });
      const address = http.server.address();
      const httpPort = typeof address === "object" && address ? address.port : config.CRUX_OTLP_HTTP_PORT;
      const grpcPort = await grpc.listen(host, config.CRUX_OTLP_GRPC_PORT);
      return { httpPort, grpcPort };
    },
    /** Stops intake; in-flight requests finish (their writes commit, their settle jobs are enqueued) before this resolves. */
    async close(): Promise<void> {
      await Promise.all([http.close(), grpc.close()]);
      await pipeline.drain();
      reporter.close();
    },
  };
}

export type Receiver = ReturnType<typeof createReceiver>;
