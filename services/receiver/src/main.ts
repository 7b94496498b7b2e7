/**
 * Production receiver (composition root): Postgres + Redis, migrations applied beforehand by `migrate`.
 *
 * It listens at once and answers exports 503 + Retry-After (which OTLP
 * exporters retry) until Postgres answers and the schema is current, so a
 * receiver started before Postgres, or during an outage, comes up by itself.
 * A stale schema, or auth on with no API key, is a deployment error: exit 1.
 */
import { loadConfig } from "@crux/config";
import { countApiKeys, createDatabase, describeStorageError, isStorageUnavailable, waitForDatabase } from "@crux/db";
import { createBullmqQueue } from "@crux/queue";
import { createLogger, createMetricsRegistry, createShutdown, onSignals } from "@crux/runtime";
import { receiverMainConfigSchema } from "./config.ts";
import { createReceiver } from "./receiver.ts";

const config = loadConfig(receiverMainConfigSchema, process.env);
const log = createLogger({ level: config.CRUX_LOG_LEVEL, name: "crux-receiver" });
const database = await createDatabase({
  url: config.DATABASE_URL,
  namedStatements: config.CRUX_PG_NAMED_STATEMENTS,
  onConnectionError: (err) => log.warn({ error: describeStorageError(err) }, "database connection failed"),
});
const queue = createBullmqQueue({ redisUrl: config.REDIS_URL, prefix: config.CRUX_QUEUE_PREFIX, log });
const receiver = createReceiver({
  database,
  queue,
  config,
  authRequired: config.CRUX_AUTH,
  log,
  httpLogger: false,
  registry: createMetricsRegistry({ defaultLabels: { service: "receiver" } }),
  closedUntilReady: "waiting for the database",
});

const startup = new AbortController();
const shutdown = createShutdown({ deadlineMs: 15_000, log });
shutdown.add("start-up wait", async () => startup.abort(new Error("shutting down")));
shutdown.add("receiver", () => receiver.close());
shutdown.add("queue", () => queue.close(5_000));
shutdown.add("database", () => database.close());
onSignals(shutdown.shutdown, (code) => process.exit(code));

async function fatal(message: string, extra: object = {}): Promise<never> {
  log.fatal(extra, message);
  await shutdown.shutdown("start-up failed");
  process.exit(1);
}

const ports = await receiver.listen();
log.info(ports, "receiver listening (OTLP/HTTP, OTLP/gRPC); exports are answered 503 until the database is ready");

/** Waits for Postgres and the schema check, then the API-key check; false when shutdown began meanwhile. */
async function becomeReady(): Promise<boolean> {
  for (;;) {
    try {
      await waitForDatabase(database, {
        signal: startup.signal,
        onUnavailable: (err, attempt, nextDelayMs) => {
          const error = describeStorageError(err);
          receiver.intake.close(`waiting for the database: ${error.message}`);
          log.warn({ attempt, retryInMs: nextDelayMs, error }, "database unavailable; exports answered 503 until it is ready");
        },
      });
      if (!config.CRUX_AUTH) {
        log.warn("auth is OFF (CRUX_AUTH=false): every export is accepted into the default project");
      } else if ((await countApiKeys(database)) === 0) {
        await fatal(
          "no API keys exist: create one with `pnpm crux keys create --project <id>` or start with CRUX_AUTH=false to accept unauthenticated exports",
        );
      }
      return true;
    } catch (err) {
      if (startup.signal.aborted) return false;
      // Postgres went away again between the schema check and the key count: wait again.
      if (isStorageUnavailable(err)) continue;
      return fatal("database not usable", { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

if (await becomeReady()) {
  receiver.intake.open();
  log.info("database ready: accepting exports");
}
