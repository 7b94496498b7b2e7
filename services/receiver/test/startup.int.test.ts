/**
 * The production entry point (services/receiver/src/main.ts as its own
 * process) started while Postgres is unreachable: it listens at once, stays
 * up, says it is live but not ready, answers exports 503 + Retry-After, logs
 * each attempt, and accepts exports once Postgres is back (a TCP proxy in
 * front of the shared server stands in for the outage). Auth on with no API
 * key is still fatal, with its message, once the database answers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createApiKey, ensureProject, type Database, type PostgresDatabase } from "@crux/db";
import { purgeQueuePrefix } from "@crux/queue";
import { startTcpProxy, testDatabases, type TcpProxy } from "@crux/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, jsonExport, jsonSpan } from "./support.ts";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const redisUrl = process.env.REDIS_URL;
const postgres = testDatabases().find((d) => d.name === "postgres");

interface Started {
  child: ChildProcess;
  lines: Record<string, any>[];
  output: () => string;
  exited: Promise<number | null>;
}

function startReceiverProcess(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ["--import", "tsx", "services/receiver/src/main.ts"], {
    cwd: repoRoot,
    env: { ...process.env, CRUX_OTLP_HTTP_PORT: "0", CRUX_OTLP_GRPC_PORT: "0", CRUX_HOST: "127.0.0.1", CRUX_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, any>[] = [];
  let output = "";
  let partial = "";
  child.stdout!.on("data", (d) => {
    output += d;
    partial += d;
    const complete = partial.split("\n");
    partial = complete.pop()!;
    for (const line of complete) if (line.startsWith("{")) lines.push(JSON.parse(line));
  });
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, lines, output: () => output, exited };
}

async function listeningPort(s: Started): Promise<number> {
  const line = await eventually(
    async () => {
      const found = s.lines.find((l) => String(l.msg).startsWith("receiver listening"));
      if (!found && s.child.exitCode !== null) throw new Error(`the receiver exited with ${s.child.exitCode} before listening:\n${s.output().slice(-2_000)}`);
      return found;
    },
    60_000,
    100,
  );
  return line.httpPort as number;
}

describe.runIf(postgres && redisUrl)("production receiver started while Postgres is down", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  });

  async function setUp() {
    const base = (await postgres!.create()) as PostgresDatabase;
    cleanup.push(() => base.close());
    const url = base.pool.options.connectionString!;
    const target = new URL(url);
    const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    cleanup.push(() => proxy.close());
    await proxy.down();
    const prefix = `test-startup-${randomUUID()}`;
    cleanup.push(() => purgeQueuePrefix(redisUrl!, prefix));
    return { base: base as Database, proxy, env: { DATABASE_URL: proxy.urlFor(url), REDIS_URL: redisUrl!, CRUX_QUEUE_PREFIX: prefix } };
  }

  function track(s: Started) {
    cleanup.push(async () => {
      if (s.child.exitCode === null) {
        s.child.kill("SIGKILL");
        await s.exited;
      }
    });
    return s;
  }

  it("stays up answering 503 (live, not ready), then accepts exports once Postgres is reachable", async () => {
    const { base, proxy, env } = await setUp();
    await ensureProject(base, "team", "Team");
    const { key } = await createApiKey(base, "team", "startup test");
    const s = track(startReceiverProcess({ ...env, CRUX_AUTH: "true" }));
    const port = await listeningPort(s);
    const url = `http://127.0.0.1:${port}`;
    const exportOnce = () =>
      fetch(`${url}/v1/traces`, {
        method: "POST",
        body: jsonExport([jsonSpan(1, { name: "after-outage" })]),
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      });

    // A log line per attempt while it waits.
    await eventually(async () => (s.lines.filter((l) => l.msg?.startsWith("database unavailable")).length >= 2 ? true : undefined), 20_000, 100);
    const attempts = s.lines.filter((l) => l.msg?.startsWith("database unavailable"));
    expect(attempts.map((l) => l.attempt).slice(0, 2)).toEqual([1, 2]);
    expect(attempts[0]!.error.message).toMatch(/ECONNREFUSED/);

    expect((await fetch(`${url}/livez`)).status).toBe(200);
    for (const path of ["/readyz", "/healthz"]) {
      const ready = await fetch(`${url}${path}`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as any;
      expect(body.status).toBe("not_ready");
      expect(body.checks.database).toMatchObject({ ok: false, error: expect.stringMatching(/ECONNREFUSED/) });
      expect(body.checks.queue.ok).toBe(true);
      expect(body.checks.intake).toMatchObject({ ok: false, error: expect.stringMatching(/^waiting for the database/) });
    }
    const refused = await exportOnce();
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as any).message).toMatch(/the receiver is starting \(waiting for the database/);
    expect(s.child.exitCode).toBeNull();

    await proxy.up();
    const accepted = await eventually(
      async () => {
        const res = await exportOnce();
        return res.status === 200 ? res : undefined;
      },
      30_000,
      250,
    );
    expect(accepted.status).toBe(200);
    expect(s.lines.some((l) => l.msg === "database ready: accepting exports")).toBe(true);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as any).checks).toMatchObject({ database: { ok: true }, queue: { ok: true }, intake: { ok: true } });

    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  }, 90_000);

  it("auth on and no API key: waits for Postgres, then exits 1 saying how to fix it", async () => {
    const { proxy, env } = await setUp();
    const s = track(startReceiverProcess({ ...env, CRUX_AUTH: "true" }));
    const port = await listeningPort(s);
    expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
    await proxy.up();
    expect(await s.exited).toBe(1);
    expect(s.output()).toMatch(/no API keys exist/);
    expect(s.output()).toMatch(/CRUX_AUTH=false/);
  }, 90_000);
});
