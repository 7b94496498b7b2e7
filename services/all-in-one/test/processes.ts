/**
 * Crux as real processes for tests: the pnpm scripts users run (through the
 * pinned pnpm, the README's command) or the script bodies (node + tsx), each
 * in its own process group so a test can send SIGINT the way a terminal does.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { emitMultiAgentTrace } from "@crux/testkit";

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const repoRootReal = realpathSync(repoRoot).replace(/\/$/, "");
const pnpmVersion = "10.34.8";

let pnpmEntry: string | undefined;

/** The pinned pnpm's entry script (fetched once by npx, as the README does), to run `pnpm <script>` without npx in between. */
function pnpmBin(): string {
  pnpmEntry ??= realpathSync(execFileSync("npx", ["--yes", "-p", `pnpm@${pnpmVersion}`, "-c", "command -v pnpm"], { cwd: repoRoot, encoding: "utf8" }).trim());
  return pnpmEntry;
}

export interface CruxProcess {
  child: ChildProcess;
  /** stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout + stderr; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Signal to the whole process group (a terminal's Ctrl-C is SIGINT to the foreground group). */
  signalGroup(signal: NodeJS.Signals): void;
}

/** Process groups started, kept after their leader exits: a child it left behind is still in the group. */
const groups = new Set<number>();

/** Starts `command` in its own process group, with `env` over this process's environment. */
function spawnCrux(command: string, args: string[], env: Record<string, string>): CruxProcess {
  // The test run's DATABASE_URL / REDIS_URL are not inherited: without them a process is the embedded default.
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: { ...inherited, CRUX_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group
  });
  if (child.pid !== undefined) groups.add(child.pid);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    signalGroup: (signal) => process.kill(-child.pid!, signal),
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let done = false;
      void exited.then(() => (done = true));
      for (;;) {
        const match = (out + err).match(pattern);
        if (match) return match;
        if (done) throw new Error(`process exited before ${pattern}:\n${out}\n${err}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** `node --import tsx <entry>`: the body of the package.json start scripts. */
export function spawnEntry(entry: string, env: Record<string, string>): CruxProcess {
  return spawnCrux(process.execPath, ["--import", "tsx", entry], env);
}

/** `pnpm <script> [args]` through the pinned pnpm. */
export function spawnScript(script: string, args: string[], env: Record<string, string>): CruxProcess {
  return spawnCrux(process.execPath, [pnpmBin(), script, ...args], env);
}

/** The README's own command line: `npx --yes pnpm@<version> <script>`. */
export function spawnReadmeCommand(script: string, env: Record<string, string>): CruxProcess {
  return spawnCrux("npx", ["--yes", `pnpm@${pnpmVersion}`, script], env);
}

/** Ports from the all-in-one start banner. */
export async function bannerPorts(crux: CruxProcess): Promise<{ otlpHttp: number; api: number }> {
  const [, otlpHttp] = await crux.waitFor(/OTLP\/HTTP\s+http:\/\/[^:]+:(\d+)\/v1\/traces/);
  const [, api] = await crux.waitFor(/API\s+http:\/\/[^:]+:(\d+)\/api\/v1\/traces/);
  return { otlpHttp: Number(otlpHttp), api: Number(api) };
}

/**
 * Kills whatever a test left running: the processes of every group it started
 * (pnpm, node, and children orphaned when their parent died). Each process is
 * checked to be in one of those groups and working in this repository, so a
 * group number reused by someone else's process is never hit.
 */
export function killLeftovers(): void {
  if (groups.size === 0) return;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (groups.has(pgid) && readlinkSync(`/proc/${entry}/cwd`) === repoRootReal) process.kill(Number(entry), "SIGKILL");
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  groups.clear();
}

/** Exports the testkit's multi-agent trace with the real OTLP/protobuf exporter; resolves once the receiver acknowledged it. */
export async function exportMultiAgentTrace(otlpUrl: string, headers: Record<string, string> = {}): Promise<string> {
  const exporter = new OTLPTraceExporter({ url: otlpUrl, headers });
  // Recorded first, then sent in one export call, so the result says whether this request was acknowledged.
  const recorder = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "research-crew" }),
    spanProcessors: [new SimpleSpanProcessor(recorder)],
  });
  const { traceId } = emitMultiAgentTrace(provider.getTracer("crux-test"), { startMs: Date.now() - 10_000 });
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(recorder.getFinishedSpans(), resolve));
  await exporter.shutdown();
  if (result.code !== 0) throw new Error(`export failed: ${result.error?.message}`);
  return traceId;
}

/** GET /api/v1/traces/:id/scores until scored (or the timeout). */
export async function waitForScores(apiUrl: string, traceId: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${apiUrl}/api/v1/traces/${traceId}/scores`, { headers }).catch(() => undefined);
    const body = res?.ok ? ((await res.json()) as any) : undefined;
    if (body?.scored) return body.scores;
    if (Date.now() > deadline) throw new Error(`trace ${traceId} not scored within ${timeoutMs} ms (last: ${res?.status} ${JSON.stringify(body)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
