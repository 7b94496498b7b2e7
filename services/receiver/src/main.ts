/** Production receiver (composition root): Postgres + Redis, migrations applied beforehand by `migrate`. */
import { loadConfig } from "@crux/config";
import { assertSchemaCurrent, countApiKeys, createDatabase } from "@crux/db";
import { createBullmqQueue } from "@crux/queue";
import { createLogger, createShutdown, onSignals } from "@crux/runtime";
import { receiverMainConfigSchema } from "./config.ts";
import { createReceiver } from "./receiver.ts";

const config = loadConfig(receiverMainConfigSchema, process.env);
const log = createLogger({ level: config.CRUX_LOG_LEVEL, name: "crux-receiver" });
const database = await createDatabase({ url: config.DATABASE_URL, namedStatements: config.CRUX_PG_NAMED_STATEMENTS });
await assertSchemaCurrent(database);
if (!config.CRUX_AUTH) {
  log.warn("auth is OFF (CRUX_AUTH=false): every export is accepted into the default project");
} else if ((await countApiKeys(database)) === 0) {
  log.fatal("no API keys exist: create one with `pnpm crux keys create --project <id>` or start with CRUX_AUTH=false to accept unauthenticated exports");
  await database.close();
  process.exit(1);
}
const queue = createBullmqQueue({ redisUrl: config.REDIS_URL, prefix: config.CRUX_QUEUE_PREFIX, log: (msg, extra) => log.warn(extra ?? {}, msg) });
const receiver = createReceiver({ database, queue, config, authRequired: config.CRUX_AUTH, log, httpLogger: false });
const shutdown = createShutdown({ deadlineMs: 15_000, log: (msg, extra) => log.info(extra ?? {}, msg) });
shutdown.add("receiver", () => receiver.close());
shutdown.add("queue", () => queue.close(5_000));
shutdown.add("database", () => database.close());
onSignals(shutdown.shutdown, (code) => process.exit(code));
const ports = await receiver.listen();
log.info(ports, "receiver listening (OTLP/HTTP, OTLP/gRPC)");
