/** The production worker entry point (src/main.ts) as a child process, for fault tests. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it printed so far (pino JSON lines). */
  output(): string;
  /** Port of its /metrics, /livez, /readyz server (once it logged it). */
  port(): Promise<number>;
  get(path: string): Promise<{ status: number; body: string }>;
  /** Resolves with the exit code when it exits. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "services/worker/src/main.ts"], {
    cwd: repoRoot,
    env: { ...process.env, CRUX_WORKER_METRICS_PORT: "0", CRUX_HOST: "127.0.0.1", CRUX_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let port: number | undefined;
  async function waitPort(): Promise<number> {
    const deadline = Date.now() + 60_000;
    while (port === undefined) {
      const m = /"port":(\d+)[^\n]*worker metrics and health listening/.exec(output);
      if (m) port = Number(m[1]);
      else if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode}) before listening:\n${output}`);
      else if (Date.now() > deadline) throw new Error(`worker did not listen within 60 s:\n${output}`);
      else await new Promise((r) => setTimeout(r, 50));
    }
    return port;
  }
  return {
    child,
    output: () => output,
    port: waitPort,
    async get(path) {
      const res = await fetch(`http://127.0.0.1:${await waitPort()}${path}`);
      return { status: res.status, body: await res.text() };
    },
    exited,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Polls `probe` until it returns a value other than undefined. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || !address) throw new Error("no port");
  return address.port;
}

/** A redis-server of the test's own on `port` (no persistence: a restart loses every key, like a failover to an empty replica). */
export async function startRedisServer(port: number): Promise<{ url: string; kill(): Promise<void> }> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await eventually(
    `redis-server on ${port}`,
    async () => (/Ready to accept connections/.test(output) ? true : child.exitCode !== null ? Promise.reject(new Error(output)) : undefined),
    10_000,
    20,
  );
  return {
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (child.exitCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
