/** Builds the API over a test database with auth off (project "default") and a fixed clock. */
import { Writable } from "node:stream";
import { ensureProject, insertSpanBatch, type Database } from "@crux/db";
import { normalizedSpan } from "@crux/core/testing";
import { createAuthenticator } from "@crux/auth";
import { createLogger, type Logger } from "@crux/runtime";
import { buildApiApp, type ApiDeps } from "../src/app.ts";
import { hexSpanId, hexTraceId } from "./score-records.ts";

export const PROJECT = "default";
/** The injected "now": 2026-01-15T12:00:00Z. */
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const HOUR = 3_600_000;

export async function buildTestApp(database: Database, extra: Partial<ApiDeps> = {}) {
  await ensureProject(database, PROJECT, PROJECT);
  return buildApiApp({
    database,
    authenticate: createAuthenticator({ database, required: false, defaultProjectId: PROJECT }),
    now: () => NOW,
    ...extra,
  });
}

/** A logger whose JSON lines are kept in `lines` (what the service would write to stdout). */
export function capturedLogger(level: "info" | "warn" = "info"): { log: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(
        ...String(chunk)
          .split("\n")
          .filter((l) => l.length > 0),
      );
      done();
    },
  });
  return { log: createLogger({ level, name: "crux-api", destination }), lines, text: () => lines.join("\n") };
}

/** Stores one span so the trace exists in `traces` (the outcome endpoint and 404 checks need it). */
export async function storeTraceSpan(database: Database, n: number, startMs: number): Promise<void> {
  const startNs = BigInt(startMs) * 1_000_000n;
  await insertSpanBatch(database, PROJECT, [
    normalizedSpan({ traceId: hexTraceId(n), spanId: hexSpanId(1), parentSpanId: null, startTimeUnixNano: startNs, endTimeUnixNano: startNs + 1_000n }),
  ]);
}

/** Runs a statement directly on the driver (tests that break the schema under the running API). */
export async function execRaw(database: Database, statement: string): Promise<void> {
  if (database.kind === "postgres") await database.pool.query(statement);
  else await database.pglite.exec(statement);
}
