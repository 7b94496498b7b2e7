/** `pnpm start`: the whole service in one process (composition root). */
import { bindHostOf, ConfigError, loadConfig } from "@crux/config";
import { DataDirLockedError } from "@crux/db";
import { createLogger, onSignals } from "@crux/runtime";
import { startAllInOne, type RunningCrux } from "./all-in-one.ts";
import { allInOneConfigSchema, type AllInOneConfig } from "./config.ts";
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

function outboundLine(allowance: AllInOneConfig["CRUX_ALLOW_PRIVATE_TARGETS"]): string {
  if (allowance === "none") return "webhooks and judge base URLs reach public addresses only (CRUX_ALLOW_PRIVATE_TARGETS=none)";
  if (allowance === "loopback")
    return "webhooks and judge base URLs may reach this host (loopback) besides public addresses (CRUX_ALLOW_PRIVATE_TARGETS=loopback)";
  return "webhooks and judge base URLs may reach this host and private networks (CRUX_ALLOW_PRIVATE_TARGETS=private)";
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
  const bound = bindHostOf(config.CRUX_HOST, config.CRUX_AUTH);
  const everywhere = bound === "0.0.0.0" || bound === "::";
  const host = everywhere ? "localhost" : bound.includes(":") ? `[${bound}]` : bound;
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
      : "  auth        OFF: every request is accepted into project 'default' (set CRUX_AUTH=true to require API keys)",
    everywhere
      ? `  listening   on every interface (${bound})${config.CRUX_AUTH ? "" : ": with auth OFF, anyone who can reach these ports reads every trace and prompt and can change every setting"}`
      : `  listening   on ${bound} only${config.CRUX_AUTH ? "" : " (auth is off: set CRUX_HOST to listen elsewhere, and then turn auth on, since without keys anyone who reaches the port reads everything)"}`,
    `  outbound    ${outboundLine(config.CRUX_ALLOW_PRIVATE_TARGETS)}`,
    "Press Ctrl-C to stop.",
    "",
  ];
  console.log(lines.join("\n"));
}
