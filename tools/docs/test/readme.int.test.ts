/**
 * The README against the running service, so it cannot drift: Crux is started
 * as `start` runs it (a child process on a fresh embedded data folder), the
 * README's two snippets are written to files as they stand and run with the
 * OTEL_* variables the README sets, then each call of the tour is made and the
 * answer compared with the JSON the README shows.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./markdown.ts";
import { disagreements, readme, tourCalls, tracerSnippets } from "./readme.ts";

const dataDir = mkdtempSync(join(tmpdir(), "crux-readme-"));
// Inside this package, so the snippets resolve the OpenTelemetry packages it installs.
const snippetDir = mkdtempSync(join(fileURLToPath(new URL("..", import.meta.url)), ".readme-run-"));
let crux: ChildProcess | undefined;
let output = "";
let api = "";
let otlp = "";

/** Runs `node args` in `cwd`; resolves with its exit code and output. */
function run(args: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node ${args.join(" ")} did not finish within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output: out });
    });
  });
}

async function waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = output.match(pattern);
    if (match) return match;
    if (crux?.exitCode !== null) throw new Error(`Crux exited before ${pattern}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api}${path}`);
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  // The embedded default, whatever this test run's DATABASE_URL / REDIS_URL say, on free ports.
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...env } = process.env;
  crux = spawn(process.execPath, ["--import", "tsx", "services/all-in-one/src/main.ts"], {
    cwd: repoRoot,
    env: { ...env, CRUX_DATA_DIR: dataDir, CRUX_HOST: "127.0.0.1", CRUX_OTLP_HTTP_PORT: "0", CRUX_OTLP_GRPC_PORT: "0", CRUX_API_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  crux.stdout!.on("data", (d) => (output += d));
  crux.stderr!.on("data", (d) => (output += d));
  const [, otlpPort] = await waitFor(/OTLP\/HTTP\s+http:\/\/[^:]+:(\d+)\/v1\/traces/, 150_000);
  const [, apiPort] = await waitFor(/API\s+http:\/\/[^:]+:(\d+)\/api\/v1\/traces/, 10_000);
  otlp = `http://127.0.0.1:${otlpPort}`;
  api = `http://127.0.0.1:${apiPort}`;
}, 180_000);

afterAll(async () => {
  if (crux && crux.exitCode === null) {
    const exited = new Promise((r) => crux!.once("exit", r));
    crux.kill("SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    if (crux.exitCode === null) crux.kill("SIGKILL");
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(snippetDir, { recursive: true, force: true });
}, 30_000);

describe("README against the running service", () => {
  let traceId = "";

  it("the hand-instrumented example runs as written and its trace is scored", async () => {
    const snippets = tracerSnippets();
    writeFileSync(join(snippetDir, "tracing.ts"), snippets["tracing.ts"]);
    writeFileSync(join(snippetDir, "agents.ts"), snippets["agents.ts"]);
    // The README's `npx tsx agents.ts`, with its OTEL_EXPORTER_OTLP_ENDPOINT pointed at this Crux.
    const example = await run(["--import", "tsx", "agents.ts"], snippetDir, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp }, 60_000);
    expect(example, example.output).toMatchObject({ code: 0 });

    const deadline = Date.now() + 30_000;
    for (;;) {
      const list = await get("/api/v1/traces");
      traceId = list.body.items?.[0]?.traceId ?? "";
      if (traceId && (await get(`/api/v1/traces/${traceId}/scores`)).body.scored) break;
      if (Date.now() > deadline) throw new Error(`the example's trace was not scored within 30 s: ${JSON.stringify(list.body)}\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 90_000);

  it.each(tourCalls().map((c) => [c.path, c] as const))("tour: GET %s answers what the README shows", async (_path, call) => {
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const answer = await get(call.path.replace("$TRACE", traceId));
    expect(answer.status).toBe(200);
    expect(disagreements(call.shown, answer.body)).toEqual([]);
  });

  it("the tour's sentence on attribution names the step the service names", async () => {
    const claim = /`\/traces\/\$TRACE\/attribution` names the decisive error\s+\(here the (\w+)'s\s+first failed `(\w+)`, step (\d+)\)/.exec(readme);
    expect(claim, "the README's attribution sentence").not.toBeNull();
    const [, agent, tool, step] = claim!;
    const { body } = await get(`/api/v1/traces/${traceId}/attribution`);
    expect(body.items[0]).toMatchObject({ rank: 1, agent, stepIndex: Number(step) });
    expect(body.items[0].reason).toContain(tool);
  });
});
