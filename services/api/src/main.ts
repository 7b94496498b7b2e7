/**
 * Production API (composition root). Starts while Postgres is down: it
 * listens first (so /livez and /readyz answer, and /api/v1 answers 503 +
 * Retry-After), waits for the database with one log line per attempt, then
 * serves. Only a configuration error (invalid environment, a stale or missing
 * schema) exits, non-zero, with one line saying what to fix.
 */
import { bindHostOf, ConfigError, judgePolicyDefaultsOf, judgeServiceDefaultOf, loadConfig, validationBarOf } from "@crux/config";
import { createDatabase, createSecretBox, describeStorageError, waitForDatabase } from "@crux/db";
import { createBullmqQueue } from "@crux/queue";
import { createAuthenticator } from "@crux/auth";
import { createLogger, createShutdown, onSignals } from "@crux/runtime";
import { buildApiApp } from "./app.ts";
import { apiMainConfigSchema } from "./config.ts";

let config;
try {
  config = loadConfig(apiMainConfigSchema, process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  createLogger({ level: "info", name: "crux-api" }).fatal(`cannot start: invalid configuration: ${err.issues.join("; ")}`);
  process.exit(1);
}
const log = createLogger({ level: config.CRUX_LOG_LEVEL, name: "crux-api" });
const database = await createDatabase({
  url: config.DATABASE_URL,
  statementTimeoutMs: config.CRUX_API_STATEMENT_TIMEOUT_MS,
  onConnectionError: (err) => log.warn({ error: describeStorageError(err).message }, "database connection lost"),
});
const queue = config.REDIS_URL ? createBullmqQueue({ redisUrl: config.REDIS_URL, prefix: config.CRUX_QUEUE_PREFIX, log }) : undefined;
if (!queue) log.warn("REDIS_URL is not set: outcome changes are re-scored by the worker's sweeper, not at once");
if (!config.CRUX_AUTH) log.warn("auth is OFF (CRUX_AUTH=false): the API serves the default project to anyone");
const authenticate = createAuthenticator({ database, required: config.CRUX_AUTH, defaultProjectId: config.CRUX_DEFAULT_PROJECT });
if (!config.CRUX_SECRET_KEY) log.warn("CRUX_SECRET_KEY is not set: projects cannot store a judge provider key (PUT /judge-settings with apiKey answers 409)");
const judges = { defaults: { model: judgeServiceDefaultOf(config), ...judgePolicyDefaultsOf(config) } };
const secretBox = config.CRUX_SECRET_KEY ? createSecretBox(config.CRUX_SECRET_KEY) : null;
let started = false;
const app = await buildApiApp({
  database,
  authenticate,
  log,
  queue,
  judges,
  started: () => started,
  validationBar: validationBarOf(config),
  secretBox,
  ui: { authRequired: config.CRUX_AUTH },
  webhookSecretOverlapMs: config.CRUX_WEBHOOK_SECRET_OVERLAP_MS,
  privateTargets: config.CRUX_ALLOW_PRIVATE_TARGETS,
});

const startup = new AbortController();
const shutdown = createShutdown({ deadlineMs: 10_000, log });
shutdown.add("start-up wait", async () => startup.abort(new Error("shutting down")));
shutdown.add("api", () => app.close());
if (queue) shutdown.add("queue", () => queue.close(5_000));
shutdown.add("database", () => database.close());
onSignals(shutdown.shutdown, (code) => process.exit(code));

const host = bindHostOf(config.CRUX_HOST, config.CRUX_AUTH);
await app.listen({ host, port: config.CRUX_API_PORT });
log.info(
  { host, port: config.CRUX_API_PORT, auth: config.CRUX_AUTH },
  config.CRUX_AUTH
    ? `API listening on ${host}: every /api/v1 request needs an API key`
    : `API listening on ${host}: auth is OFF, anyone who reaches this port reads and changes everything`,
);
try {
  await waitForDatabase(database, {
    signal: startup.signal,
    onUnavailable: (err, attempt, nextDelayMs) =>
      log.warn({ attempt, retryInMs: nextDelayMs, error: describeStorageError(err).message }, "database unavailable at start-up; waiting (API answers 503)"),
  });
} catch (err) {
  if (startup.signal.aborted) {
    await new Promise(() => {}); // the signal handler finishes the shutdown and exits
  }
  log.fatal(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown.shutdown("start-up failed");
  process.exit(1);
}
started = true;
log.info("database ready: API serving");
