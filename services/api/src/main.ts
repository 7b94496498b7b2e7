/** Production API (composition root). */
import { loadConfig } from "@crux/config";
import { assertSchemaCurrent, createDatabase } from "@crux/db";
import { createAuthenticator, createLogger, createShutdown, onSignals } from "@crux/runtime";
import { buildApiApp } from "./app.ts";
import { apiMainConfigSchema } from "./config.ts";

const config = loadConfig(apiMainConfigSchema, process.env);
const log = createLogger({ level: config.CRUX_LOG_LEVEL, name: "crux-api" });
const database = await createDatabase({ url: config.DATABASE_URL });
await assertSchemaCurrent(database);
if (!config.CRUX_AUTH) log.warn("auth is OFF (CRUX_AUTH=false): the API serves the default project to anyone");
const authenticate = createAuthenticator({ database, required: config.CRUX_AUTH, defaultProjectId: config.CRUX_DEFAULT_PROJECT });
const app = await buildApiApp({ database, authenticate, log });
const shutdown = createShutdown({ deadlineMs: 10_000, log: (msg, extra) => log.info(extra ?? {}, msg) });
shutdown.add("api", () => app.close());
shutdown.add("database", () => database.close());
onSignals(shutdown.shutdown, (code) => process.exit(code));
await app.listen({ host: config.CRUX_HOST, port: config.CRUX_API_PORT });
