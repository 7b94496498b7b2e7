/**
 * The real service for the browser tests and the UI benchmark: `pnpm start` (the README's start,
 * through the pinned pnpm) as a child process in its own process group, on a temporary
 * CRUX_DATA_DIR and free ports read from its start banner; traces sent through its OTLP receiver.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const pnpmVersion = "10.34.8";

/** Debian's Chromium (apt-get install -y chromium), or CRUX_CHROMIUM; null when neither exists. */
export function chromiumPath(): string | null {
  const candidates = [process.env.CRUX_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => !!p);
  return candidates.find((p) => existsSync(p)) ?? null;
}

export const noChromiumLine = "browser tests skipped: no Chromium found; install it with `apt-get install -y chromium` (or set CRUX_CHROMIUM to its path)";

let pnpmEntry: string | undefined;
function pnpmBin(): string {
  pnpmEntry ??= execFileSync("npx", ["--yes", "-p", `pnpm@${pnpmVersion}`, "-c", "command -v pnpm"], { cwd: repoRoot, encoding: "utf8" }).trim();
  return pnpmEntry;
}

export interface RunningService {
  uiUrl: string;
  apiUrl: string;
  otlpUrl: string;
  output(): string;
  stop(): Promise<void>;
}

function run(args: string[], env: Record<string, string>): ChildProcess {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
  return spawn(process.execPath, [pnpmBin(), ...args], {
    cwd: repoRoot,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
}

/** `pnpm crux keys create` on the data folder (the embedded database is opened by one process at a time: before the start). */
export function createKey(dataDir: string, project = "default"): string {
  const out = execFileSync(process.execPath, [pnpmBin(), "crux", "keys", "create", "--project", project, "--name", "ui-test"], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: "", CRUX_DATA_DIR: dataDir },
    encoding: "utf8",
  });
  const key = out.trim().split("\n").pop()!.trim();
  if (key.length < 16) throw new Error(`no key in: ${out}`);
  return key;
}

export function tempDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), "crux-ui-data-"));
}

export async function startService(dataDir: string, env: Record<string, string> = {}): Promise<RunningService> {
  const child = run(["start"], {
    CRUX_DATA_DIR: dataDir,
    CRUX_HOST: "127.0.0.1",
    CRUX_API_PORT: "0",
    CRUX_OTLP_HTTP_PORT: "0",
    CRUX_OTLP_GRPC_PORT: "0",
    CRUX_SETTLE_DELAY_MS: "300",
    CRUX_SETTLE_ROOT_DELAY_MS: "100",
    CRUX_LOG_LEVEL: "warn",
    ...env,
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let done = false;
  void exited.then(() => (done = true));
  const deadline = Date.now() + 120_000;
  let ui: RegExpMatchArray | null = null;
  let otlp: RegExpMatchArray | null = null;
  while (!(ui && otlp)) {
    ui = out.match(/UI\s+(http:\/\/\S+?)\/\s/);
    otlp = out.match(/OTLP\/HTTP\s+(http:\/\/\S+\/v1\/traces)/);
    if (done) throw new Error(`crux exited before its banner:\n${out}`);
    if (Date.now() > deadline) throw new Error(`no banner within 120 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const base = ui![1]!;
  return {
    uiUrl: `${base}/`,
    apiUrl: `${base}/api/v1`,
    otlpUrl: otlp![1]!,
    output: () => out,
    async stop() {
      if (!done) {
        try {
          process.kill(-child.pid!, "SIGINT");
        } catch {
          // already gone
        }
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {
            // gone
          }
        }, 20_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The recorded golden traces (packages/otlp/test/golden), as OTLP/JSON export bodies by name. */
export function goldenExports(): { name: string; body: string; traceId: string }[] {
  const dir = path.join(repoRoot, "packages/otlp/test/golden");
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "export.json")))
    .map((d) => {
      const body = readFileSync(path.join(dir, d.name, "export.json"), "utf8");
      const traceId = (body.match(/"traceId"\s*:\s*"([0-9a-fA-F]{32})"/)?.[1] ?? "").toLowerCase();
      return { name: d.name, body, traceId };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * An OTLP/JSON export body of `count` runs of one orphan chat span each (the parent never arrives, so
 * none settles or is scored while a test or the benchmark runs), a second apart back from `startMs`.
 */
export function orphanRuns(count: number, startMs: number, serviceName: string): string {
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: randomBytes(16).toString("hex"),
    spanId: randomBytes(8).toString("hex"),
    parentSpanId: randomBytes(8).toString("hex"),
    name: `chat step ${i}`,
    kind: 3,
    startTimeUnixNano: (BigInt(startMs - i * 1000) * 1_000_000n).toString(),
    endTimeUnixNano: (BigInt(startMs - i * 1000 + 20) * 1_000_000n).toString(),
    attributes: [str("gen_ai.operation.name", "chat"), str("gen_ai.agent.name", `agent-${i % 8}`)],
    status: {},
  }));
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [str("service.name", serviceName)] }, scopeSpans: [{ scope: { name: "crux-test" }, spans }] }],
  });
}

export async function postOtlpJson(otlpUrl: string, body: string, key?: string): Promise<void> {
  const res = await fetch(otlpUrl, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });
  if (res.status !== 200) throw new Error(`OTLP export answered ${res.status}: ${await res.text()}`);
}

export async function apiGet<T = any>(apiUrl: string, pathAndQuery: string, key?: string): Promise<T> {
  const res = await fetch(`${apiUrl}${pathAndQuery}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  if (!res.ok) throw new Error(`GET ${pathAndQuery}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
}

/** playwright-core is services/web's dependency: the UI benchmark (bench/ui.bench.ts) launches Chromium through here. */
export { chromium } from "playwright-core";
