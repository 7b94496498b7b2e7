/** Production worker (composition root). */
import { loadConfig } from "@crux/config";
import { createDatabase, describeStorageError, waitForDatabase } from "@crux/db";
import { createJudgeSuite } from "@crux/judges";
import { createBullmqQueue } from "@crux/queue";
import { createLogger, createMetricsRegistry, createReadiness, createShutdown, onSignals } from "@crux/runtime";
import { workerMainConfigSchema } from "./config.ts";
import { startWorkerHttpServer } from "./http-server.ts";
import { workerQueueRegistry } from "./queue-registry.ts";
import { createWorker } from "./worker.ts";

const config = loadConfig(workerMainConfigSchema, process.env);
const log = createLogger({ level: config.CRUX_LOG_LEVEL, name: "crux-worker" });

// Named connections, so an operator (or a fault test) can find the worker's in pg_stat_activity.
const databaseUrl = new URL(config.DATABASE_URL);
if (!databaseUrl.searchParams.has("application_name")) databaseUrl.searchParams.set("application_name", "crux-worker");
const database = await createDatabase({
  url: databaseUrl.toString(),
  onConnectionError: (err) => log.warn({ error: describeStorageError(err) }, "postgres connection lost; the next query reconnects"),
});
const queue = createBullmqQueue({
  redisUrl: config.REDIS_URL,
  prefix: config.CRUX_QUEUE_PREFIX,
  log,
  registry: workerQueueRegistry(config),
  jobLockMs: config.CRUX_JOB_LOCK_MS,
});
const registry = createMetricsRegistry({ defaultLabels: { service: "worker" } });
if (!config.CRUX_SECRET_KEY) log.warn("CRUX_SECRET_KEY is not set: judge provider keys stored by projects cannot be opened (those projects' judges are off)");
const worker = createWorker({ database, queue, config, log, registry, judgeSuites: createJudgeSuite });
const readiness = createReadiness({ postgres: () => database.ping(), redis: () => queue.ping() });
const http = await startWorkerHttpServer({ host: config.CRUX_HOST, port: config.CRUX_WORKER_METRICS_PORT, registry, readiness });
log.info({ port: http.port }, "worker metrics and health listening (/metrics, /livez, /readyz)");

const starting = new AbortController();
const shutdown = createShutdown({ deadlineMs: 30_000, log });
shutdown.add("start-up", async () => starting.abort(new Error("shutting down")));
shutdown.add("worker", () => worker.stop());
shutdown.add("queue", () => queue.close(25_000));
shutdown.add("milestone threads", () => worker.close());
shutdown.add("http", () => http.close());
shutdown.add("database", () => database.close());
onSignals(shutdown.shutdown, (code) => process.exit(code));

// Postgres down at start is waited out (a stale schema still fails at once); Redis outages are BullMQ's to wait out.
try {
  await waitForDatabase(database, {
    signal: starting.signal,
    onUnavailable: (err, attempt, nextDelayMs) =>
      log.warn({ error: describeStorageError(err), attempt, nextDelayMs }, "postgres unavailable at start; waiting"),
  });
} catch (err) {
  if (starting.signal.aborted) await new Promise(() => {}); // shutdown is under way and exits
  log.fatal({ error: describeStorageError(err) }, "worker cannot start");
  await shutdown.shutdown("start-up failed");
  process.exit(1);
}
worker.start();
log.info({ concurrency: worker.config.CRUX_WORKER_CONCURRENCY, perProject: worker.config.CRUX_WORKER_PROJECT_CONCURRENCY }, "worker started");
