/** `pnpm start`: the whole service in one process (composition root). */
import { ConfigError, loadConfig } from "@crux/config";
import { createLogger, onSignals } from "@crux/runtime";
import { startAllInOne } from "./all-in-one.ts";
import { allInOneConfigSchema } from "./config.ts";

let config;
try {
  config = loadConfig(allInOneConfigSchema, process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const log = createLogger({ level: config.CRUX_LOG_LEVEL, name: "crux" });
const crux = await startAllInOne(config, log).catch((err) => {
  log.fatal({ err }, "crux failed to start");
  process.exit(1);
});
onSignals((reason) => crux.stop(reason), (code) => process.exit(code));

const host = config.CRUX_HOST === "0.0.0.0" ? "localhost" : config.CRUX_HOST;
const lines = [
  "",
  "Crux is running (all-in-one)",
  `  OTLP/HTTP   http://${host}:${crux.ports.otlpHttp}/v1/traces`,
  `  OTLP/gRPC   ${host}:${crux.ports.otlpGrpc}`,
  `  API         http://${host}:${crux.ports.api}/api/v1/traces`,
  `  API docs    http://${host}:${crux.ports.api}/api/docs`,
  `  storage     ${crux.storage === "pglite" ? `PGlite (embedded) in ${config.CRUX_DATA_DIR}` : "PostgreSQL (DATABASE_URL)"}`,
  `  queue       ${crux.queueKind === "in-process" ? "in-process" : "BullMQ on Redis (REDIS_URL)"}`,
  config.CRUX_AUTH
    ? "  auth        ON: send 'Authorization: Bearer <key>' (create one with `pnpm crux keys create`)"
    : "  auth        OFF: every request is accepted into project 'default' (set CRUX_AUTH=true to require API keys)",
  "Press Ctrl-C to stop.",
  "",
];
console.log(lines.join("\n"));
