/** Production worker (composition root). */
import { loadConfig } from "@crux/config";
import { assertSchemaCurrent, createDatabase } from "@crux/db";
import { createBullmqQueue } from "@crux/queue";
import { createLogger, createShutdown, onSignals } from "@crux/runtime";
import { workerMainConfigSchema } from "./config.ts";
import { createWorker } from "./worker.ts";

const config = loadConfig(workerMainConfigSchema, process.env);
const log = createLogger({ level: config.CRUX_LOG_LEVEL, name: "crux-worker" });
const database = await createDatabase({ url: config.DATABASE_URL });
await assertSchemaCurrent(database);
const queue = createBullmqQueue({ redisUrl: config.REDIS_URL, prefix: config.CRUX_QUEUE_PREFIX, log: (msg, extra) => log.warn(extra ?? {}, msg) });
const worker = createWorker({ database, queue, config, log });
const shutdown = createShutdown({ deadlineMs: 30_000, log: (msg, extra) => log.info(extra ?? {}, msg) });
shutdown.add("worker", () => worker.stop());
shutdown.add("queue", () => queue.close(25_000));
shutdown.add("database", () => database.close());
onSignals(shutdown.shutdown, (code) => process.exit(code));
worker.start();
log.info({ concurrency: config.CRUX_WORKER_CONCURRENCY }, "worker started");
