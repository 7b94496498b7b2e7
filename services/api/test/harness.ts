/** Builds the API over a test database with auth off (project "default") and a fixed clock. */
import { ensureProject, insertSpanBatch, type Database } from "@crux/db";
import { normalizedSpan } from "@crux/core/testing";
import { createAuthenticator } from "@crux/runtime";
import { buildApiApp } from "../src/app.ts";
import { hexSpanId, hexTraceId } from "./score-records.ts";

export const PROJECT = "default";
/** The injected "now": 2026-01-15T12:00:00Z. */
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const HOUR = 3_600_000;

export async function buildTestApp(database: Database) {
  await ensureProject(database, PROJECT, PROJECT);
  return buildApiApp({
    database,
    authenticate: createAuthenticator({ database, required: false, defaultProjectId: PROJECT }),
    now: () => NOW,
  });
}

/** Stores one span so the trace exists in `traces` (the outcome endpoint and 404 checks need it). */
export async function storeTraceSpan(database: Database, n: number, startMs: number): Promise<void> {
  const startNs = BigInt(startMs) * 1_000_000n;
  await insertSpanBatch(database, PROJECT, [
    normalizedSpan({ traceId: hexTraceId(n), spanId: hexSpanId(1), parentSpanId: null, startTimeUnixNano: startNs, endTimeUnixNano: startNs + 1_000n }),
  ]);
}
