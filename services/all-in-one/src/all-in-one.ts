/**
 * Composition of receiver, worker and API in one process. Used by main.ts and
 * by end-to-end tests, which start it on ephemeral ports.
 */
import { buildApiApp, validationBarOf } from "@crux/api";
import { createDatabase, describeStorageError, ensureProject, migrate, type Database } from "@crux/db";
import { createMetricsRegistry } from "@crux/observability";
import { createBullmqQueue, createInProcessQueue, queueRegistry, withScheduleEvery, type JobQueue } from "@crux/queue";
import { createReceiver } from "@crux/receiver";
import { createAuthenticator } from "@crux/auth";
import { createShutdown, type Logger } from "@crux/runtime";
import { createWorker, type Worker } from "@crux/worker";
import type { AllInOneConfig } from "./config.ts";
import { asPortInUse } from "./ports.ts";

/** Dirty traces enqueued by the start-up sweep at most; the sweeper picks up any beyond. */
const startupSweepLimit = 10_000;

export interface RunningCrux {
  ports: { otlpHttp: number; otlpGrpc: number; api: number };
  worker: Worker;
  storage: "postgres" | "pglite";
  queueKind: "bullmq" | "in-process";
  stop(reason?: string): Promise<void>;
}

/** Builds storage and queue from config (embedded default unless DATABASE_URL / REDIS_URL), then composes. */
export async function startAllInOne(config: AllInOneConfig, log: Logger): Promise<RunningCrux> {
  const database = config.DATABASE_URL
    ? await createDatabase({ url: config.DATABASE_URL, namedStatements: config.CRUX_PG_NAMED_STATEMENTS })
    : await createDatabase({ dataDir: config.CRUX_DATA_DIR });
  try {
    await migrate(database);
    await ensureProject(database, config.CRUX_DEFAULT_PROJECT, config.CRUX_DEFAULT_PROJECT);
  } catch (err) {
    await database.close();
    throw err;
  }
  const registry = withScheduleEvery(queueRegistry, "alerts.evaluate", config.CRUX_ALERTS_EVALUATE_INTERVAL_MS);
  const queue = config.REDIS_URL
    ? createBullmqQueue({ redisUrl: config.REDIS_URL, prefix: config.CRUX_QUEUE_PREFIX, log, registry })
    : createInProcessQueue({ log, registry });
  return composeCrux({ database, queue, config, log });
}

/** Receiver + worker + API over given storage and queue; the returned stop() closes all of them, storage last. */
export async function composeCrux(deps: { database: Database; queue: JobQueue; config: AllInOneConfig; log: Logger }): Promise<RunningCrux> {
  const { database, queue, config, log } = deps;
  const shutdown = createShutdown({ deadlineMs: 15_000, log });

  // One registry: the API's /metrics (and the receiver's) show all three services of this process.
  const registry = createMetricsRegistry();
  const receiver = createReceiver({ database, queue, config, authRequired: config.CRUX_AUTH, log: log.child({ service: "receiver" }), registry });
  const worker = createWorker({ database, queue, config, log: log.child({ service: "worker" }), registry });
  const authenticate = createAuthenticator({ database, required: config.CRUX_AUTH, defaultProjectId: config.CRUX_DEFAULT_PROJECT });
  const api = await buildApiApp({
    database,
    authenticate,
    queue,
    registry,
    validationBar: validationBarOf(config),
    webhookSecretKey: config.CRUX_WEBHOOK_SECRET_KEY,
  });

  // Order matters: stop intake, let in-flight writes commit, drain jobs, then close storage.
  shutdown.add("receiver", () => receiver.close());
  shutdown.add("api", () => api.close());
  shutdown.add("worker", () => worker.stop());
  shutdown.add("queue", () => queue.close(10_000));
  shutdown.add("milestone threads", () => worker.close());
  shutdown.add("database", () => database.close());

  try {
    worker.start();
    // The in-process queue starts empty, so every trace still dirty was left by the previous run
    // (killed, or jobs cut off at the shutdown deadline): enqueue them now, before intake opens,
    // rather than after the sweeper's quiet period. A failure is not fatal: the sweeper retries.
    if (queue.kind === "in-process") {
      await worker.sweeper.sweepOnce({ quietMs: 0, limit: startupSweepLimit }).then(
        (traces) => traces > 0 && log.info({ traces }, "start-up sweep enqueued traces left dirty or unscored by the previous run"),
        (err: unknown) => log.warn({ err: describeStorageError(err) }, "start-up sweep failed; the sweeper will retry"),
      );
    }
    const { httpPort, grpcPort } = await receiver.listen().catch((err: unknown) => Promise.reject(asPortInUse(err, config)));
    await api.listen({ host: config.CRUX_HOST, port: config.CRUX_API_PORT }).catch((err: unknown) => Promise.reject(asPortInUse(err, config)));
    const address = api.server.address();
    const apiPort = typeof address === "object" && address ? address.port : config.CRUX_API_PORT;
    return {
      ports: { otlpHttp: httpPort, otlpGrpc: grpcPort, api: apiPort },
      worker,
      storage: database.kind,
      queueKind: queue.kind,
      stop: (reason = "stop") => shutdown.shutdown(reason),
    };
  } catch (err) {
    await shutdown.shutdown("failed to start");
    throw err;
  }
}
