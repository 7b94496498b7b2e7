/**
 * The production entry point (src/main.ts) as its own process: it starts while
 * Postgres is unreachable (listening at once: /livez 200, /readyz and /api/v1
 * 503, one log line per wait attempt), serves once Postgres is back, and exits
 * non-zero with one line only for configuration errors (a stale schema, an
 * invalid environment).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Database } from "@crux/db";
import { startTcpProxy, testDatabases, type TcpProxy } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execRaw } from "./harness.ts";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const postgres = testDatabases().find((d) => d.name === "postgres");

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startApi(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ["--import", "tsx", "services/api/src/main.ts"], {
    cwd: repoRoot,
    env: { ...process.env, CRUX_HOST: "127.0.0.1", CRUX_API_PORT: "0", CRUX_AUTH: "false", CRUX_LOG_LEVEL: "info", REDIS_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => (clearTimeout(timer), resolve(code))));
  return { child, output: () => output, exited };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.runIf(postgres)("API main.ts start-up", () => {
  let database: Database;
  let proxy: TcpProxy;
  let url: string;

  beforeAll(async () => {
    database = await postgres!.create();
    if (database.kind !== "postgres") throw new Error("expected Postgres");
    const direct = new URL(String(database.pool.options.connectionString));
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    url = proxy.urlFor(direct.toString());
  });
  afterAll(async () => {
    await proxy.close();
    await database.close();
  });

  it("starts during an outage: /livez 200, /readyz and /api/v1 503 while it waits (a log line per attempt), then serves", async () => {
    await proxy.down();
    const api = startApi({ DATABASE_URL: url });
    try {
      const base = await until("the listening line", () => /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(api.output())?.[1]);
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean }> };
      expect(body.checks.database!.ok).toBe(false);
      expect(body.checks.startup!.ok).toBe(false);
      const traces = await fetch(`${base}/api/v1/traces`);
      expect(traces.status).toBe(503);
      expect(traces.headers.get("retry-after")).toBe("5");
      await until("two wait attempts logged", () => ((api.output().match(/database unavailable at start-up/g) ?? []).length >= 2 ? true : undefined));

      await proxy.up();
      await until("readiness", async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined));
      expect((await fetch(`${base}/api/v1/traces`)).status).toBe(200);
      expect(api.output()).toMatch(/database ready: API serving/);
      api.child.kill("SIGTERM");
      expect(await api.exited).toBe(0);
    } finally {
      api.child.kill("SIGKILL");
    }
  }, 60_000);

  it("a statement past CRUX_API_STATEMENT_TIMEOUT_MS is cancelled: 503 unavailable + Retry-After saying so, and the API serves on", async () => {
    const api = startApi({ DATABASE_URL: url, CRUX_API_STATEMENT_TIMEOUT_MS: "500" });
    if (database.kind !== "postgres") throw new Error("expected Postgres");
    // A transaction elsewhere holds the traces table: the list's query waits on the lock until its timeout.
    const holder = await database.pool.connect();
    try {
      const base = await until("the listening line", () => /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(api.output())?.[1]);
      await until("readiness", async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined));
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE traces IN ACCESS EXCLUSIVE MODE");
      const started = Date.now();
      const res = await fetch(`${base}/api/v1/traces`);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(await res.json()).toEqual({
        code: "unavailable",
        message: "the query ran past the API's statement timeout (CRUX_API_STATEMENT_TIMEOUT_MS); narrow the filters or retry later",
      });
      expect(Date.now() - started).toBeLessThan(10_000); // without the timeout it waits for the lock as long as it is held
      await holder.query("COMMIT");
      expect((await fetch(`${base}/api/v1/traces`)).status).toBe(200);
      expect(api.output()).toMatch(/statement timed out/);
      api.child.kill("SIGTERM");
      expect(await api.exited).toBe(0);
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined);
      holder.release();
      api.child.kill("SIGKILL");
    }
  }, 60_000);

  it("a stale schema exits 1 with one line saying to migrate", async () => {
    await execRaw(database, "DELETE FROM drizzle.__drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations)");
    const api = startApi({ DATABASE_URL: url });
    expect(await api.exited).toBe(1);
    const fatal = api
      .output()
      .split("\n")
      .filter((l) => l.includes('"level":60'));
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatch(/cannot start: database schema is behind this build: 1 migration\(s\) pending: run the migrate command/);
  }, 60_000);

  it("an invalid environment exits 1 with one line naming the variable", async () => {
    const api = startApi({ DATABASE_URL: "not a url" });
    expect(await api.exited).toBe(1);
    const fatal = api
      .output()
      .split("\n")
      .filter((l) => l.includes('"level":60'));
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatch(/invalid configuration: DATABASE_URL/);
  }, 60_000);
});
