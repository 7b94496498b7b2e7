/**
 * Talks to Crux over its public surfaces only: OTLP/HTTP to export, the REST
 * API to read attributions and verdicts. Either a running Crux (URLs given)
 * or a fresh one started as a child process (`pnpm start`'s entry point, the
 * embedded default: PGlite in a new temporary folder, in-process queue),
 * stopped with Ctrl-C's signal when done.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface CruxEndpoints {
  otlpUrl: string;
  apiUrl: string;
  apiKey: string | null;
}

export interface StartedCrux extends CruxEndpoints {
  stop(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Starts the all-in-one service on free ports against an empty embedded data folder; `env` adds settings (judges). */
export async function startCrux(env: Record<string, string> = {}, timeoutMs = 120_000): Promise<StartedCrux> {
  const dataDir = await mkdtemp(join(tmpdir(), "crux-attribution-eval-"));
  const childEnv: Record<string, string> = {};
  // A fresh embedded service: whatever database, queue or key the caller's shell points at is not used.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("CRUX_") && k !== "DATABASE_URL" && k !== "REDIS_URL") childEnv[k] = v;
  Object.assign(childEnv, {
    CRUX_DATA_DIR: dataDir,
    CRUX_HOST: "127.0.0.1",
    CRUX_OTLP_HTTP_PORT: "0",
    CRUX_OTLP_GRPC_PORT: "0",
    CRUX_API_PORT: "0",
    CRUX_SETTLE_DELAY_MS: "200",
    CRUX_SETTLE_ROOT_DELAY_MS: "100",
    CRUX_LOG_LEVEL: "warn",
    ...env,
  });
  const child = spawn(process.execPath, ["--import", "tsx", "services/all-in-one/src/main.ts"], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const ports = await new Promise<{ otlpUrl: string; apiUrl: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Crux did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const otlp = /OTLP\/HTTP\s+(http:\/\/\S+\/v1\/traces)/.exec(output)?.[1];
      const api = /API\s+(http:\/\/\S+)\/api\/v1\/traces/.exec(output)?.[1];
      if (otlp !== undefined && api !== undefined) {
        clearTimeout(timer);
        resolve({ otlpUrl: otlp.replace("localhost", "127.0.0.1"), apiUrl: api.replace("localhost", "127.0.0.1") });
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Crux exited (${code}) before it was ready:\n${output}`));
    });
  });
  return {
    ...ports,
    apiKey: null,
    stop: async () => {
      await stopChild(child);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

export class CruxClient {
  constructor(private readonly endpoints: CruxEndpoints) {}

  private headers(json: boolean): Record<string, string> {
    return {
      ...(json ? { "content-type": "application/json" } : {}),
      ...(this.endpoints.apiKey === null ? {} : { authorization: `Bearer ${this.endpoints.apiKey}` }),
    };
  }

  /** One OTLP/JSON export; a non-2xx answer is an error naming the status and body. */
  async export(body: unknown): Promise<void> {
    const res = await fetch(this.endpoints.otlpUrl, { method: "POST", headers: this.headers(true), body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`export rejected: HTTP ${res.status} ${await res.text()}`);
  }

  /** GET under /api/v1; undefined on 404 (not ingested yet). */
  async get<T>(path: string): Promise<T | undefined> {
    const res = await fetch(`${this.endpoints.apiUrl}/api/v1${path}`, { headers: this.headers(false) });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  async put(path: string, body: unknown): Promise<void> {
    const res = await fetch(`${this.endpoints.apiUrl}/api/v1${path}`, { method: "PUT", headers: this.headers(true), body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`PUT ${path}: HTTP ${res.status} ${await res.text()}`);
  }
}

/** What GET /traces/:id/attribution answers (the fields read here). */
export interface AttributionResponse {
  scored: boolean;
  items: { rank: number; agent: string | null; spanId: string | null; confidence: number; method: string; reason: string }[];
  methods: { method: string; source: string; pick: { agent: string | null; spanId: string | null } | null }[];
}

export interface VerdictsResponse {
  items: { producerId: string; status: string }[];
}

export interface JudgeCallsResponse {
  items: { costUsd: number | null; outcome: string }[];
  nextCursor: string | null;
}
