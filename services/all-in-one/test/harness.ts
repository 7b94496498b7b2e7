/**
 * Starts the real service (receiver + worker + API) for end-to-end tests on
 * each backend: the embedded default (PGlite + in-process queue) always, and
 * Postgres + BullMQ/Redis when DATABASE_URL is set (as in CI). Each start gets
 * a fresh database and a unique queue prefix.
 */
import { ensureProject, type Database } from "@crux/db";
import { type JobQueue } from "@crux/queue";
import { createLogger, type Logger } from "@crux/runtime";
import { testBackends, type Backend } from "@crux/testkit";
import { loadConfig } from "@crux/config";
import { allInOneConfigSchema, composeCrux, type AllInOneConfig, type RunningCrux } from "../src/index.ts";

export type { Backend };

/** The backends every end-to-end test runs on (see @crux/testkit testBackends). */
export function backends(): Backend[] {
  return testBackends();
}

export interface TestCrux {
  crux: RunningCrux;
  database: Database;
  queue: JobQueue;
  otlpUrl: string;
  grpcAddress: string;
  apiUrl: string;
  config: AllInOneConfig;
  stop(): Promise<void>;
}

export async function startTestCrux(
  backend: Backend,
  env: Record<string, string> = {},
  queue?: JobQueue,
  extra: Pick<Parameters<typeof composeCrux>[0], "judgeSuites"> & { log?: Logger } = {},
): Promise<TestCrux> {
  const config = loadConfig(allInOneConfigSchema, {
    CRUX_HOST: "127.0.0.1",
    CRUX_OTLP_HTTP_PORT: "0",
    CRUX_OTLP_GRPC_PORT: "0",
    CRUX_API_PORT: "0",
    CRUX_SETTLE_DELAY_MS: "150",
    CRUX_SWEEP_INTERVAL_MS: "200",
    CRUX_SWEEP_QUIET_MS: "300",
    CRUX_LOG_LEVEL: "silent",
    ...env,
  });
  const database = await backend.createDatabase();
  await ensureProject(database, config.CRUX_DEFAULT_PROJECT, config.CRUX_DEFAULT_PROJECT);
  const own = queue ? null : backend.createQueue();
  const q = queue ?? own!.queue;
  const crux = await composeCrux({ database, queue: q, config, log: createLogger({ level: "silent", name: "test" }), ...extra });
  return {
    crux,
    database,
    queue: q,
    config,
    otlpUrl: `http://127.0.0.1:${crux.ports.otlpHttp}/v1/traces`,
    grpcAddress: `http://127.0.0.1:${crux.ports.otlpGrpc}`,
    apiUrl: `http://127.0.0.1:${crux.ports.api}`,
    stop: async () => {
      await crux.stop("test done");
      await own?.purge();
    },
  };
}

/** Polls until check() returns a value (not undefined) or the timeout passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.json() };
}
