/** `pnpm start`: the whole service in one process (composition root). */
import { ConfigError, loadConfig } from "@crux/config";
import { DataDirLockedError } from "@crux/db";
import { createLogger, onSignals } from "@crux/runtime";
import { startAllInOne, type RunningCrux } from "./all-in-one.ts";
import { allInOneConfigSchema } from "./config.ts";
import { assertPortsFree, PortInUseError } from "./ports.ts";

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

// Signals are wired before start-up: Ctrl-C during a slow first start (PGlite's initdb) waits for
// the start to finish and then shuts down cleanly, instead of dying with the folder half set up.
let starting: Promise<RunningCrux> | undefined;
let stopping = false;
onSignals(
  async (reason) => {
    stopping = true;
    const crux = await starting?.catch(() => undefined);
    await crux?.stop(reason);
  },
  (code) => process.exit(code),
);

let crux: RunningCrux;
try {
  await assertPortsFree(config);
  starting = startAllInOne(config, log);
  crux = await starting;
} catch (err) {
  const line = plainStartError(err);
  if (line) console.error(line);
  else log.fatal({ err }, "crux failed to start");
  process.exit(1);
}

/** One line for the failures a user fixes by choosing another folder or port; undefined for the rest. */
function plainStartError(err: unknown): string | undefined {
  if (err instanceof PortInUseError) return `Crux cannot start: ${err.message}`;
  if (err instanceof DataDirLockedError) {
    const fix = err.owner.sameHost
      ? "stop it, or set CRUX_DATA_DIR to use another folder"
      : `if it no longer runs, delete ${err.lockFile}; or set CRUX_DATA_DIR to use another folder`;
    return `Crux cannot start: ${err.message}: ${fix}`;
  }
  return undefined;
}

if (!stopping) {
  const host = config.CRUX_HOST === "0.0.0.0" ? "localhost" : config.CRUX_HOST;
  const lines = [
    "",
    "Crux is running (all-in-one)",
    `  OTLP/HTTP   http://${host}:${crux.ports.otlpHttp}/v1/traces`,
    `  OTLP/gRPC   ${host}:${crux.ports.otlpGrpc}`,
    `  UI          http://${host}:${crux.ports.api}/`,
    `  API         http://${host}:${crux.ports.api}/api/v1/traces`,
    `  API docs    http://${host}:${crux.ports.api}/api/docs`,
    `  storage     ${crux.storage === "pglite" ? `PGlite (embedded) in ${config.CRUX_DATA_DIR}` : "PostgreSQL (DATABASE_URL)"}`,
    `  queue       ${crux.queueKind === "in-process" ? "in-process" : "BullMQ on Redis (REDIS_URL)"}`,
    config.CRUX_AUTH
      ? `  auth        ON: send 'Authorization: Bearer <key>' (create one with \`pnpm crux keys create\`${crux.storage === "pglite" ? " while Crux is stopped" : ""})`
      : "  auth        OFF: every request is accepted into project 'default', and anyone who can reach these ports can read the data (set CRUX_AUTH=true to require API keys)",
    "Press Ctrl-C to stop.",
    "",
  ];
  console.log(lines.join("\n"));
}
