/**
 * The dirty flag: insertSpanBatch marks a trace dirty; the settle job finds
 * traces that went quiet, rebuilds them, and clears the flag only if no span
 * arrived meanwhile (last_received_at strictly increases on every write).
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "./client.ts";
import { traces } from "./schema.ts";

export interface DirtyTrace {
  projectId: string;
  traceId: string;
  lastReceivedAt: Date;
}

/** Dirty traces whose last span arrived more than quietBeforeMs ago, oldest first, across projects. */
export async function listDirtyTraces(database: Database, opts: { quietBeforeMs: number; limit: number }): Promise<DirtyTrace[]> {
  return database.db
    .select({ projectId: traces.projectId, traceId: traces.traceId, lastReceivedAt: traces.lastReceivedAt })
    .from(traces)
    .where(and(eq(traces.dirty, true), sql`${traces.lastReceivedAt} < now() - ${opts.quietBeforeMs}::double precision * interval '1 millisecond'`))
    .orderBy(asc(traces.lastReceivedAt))
    .limit(Math.max(1, Math.trunc(opts.limit)));
}

/**
 * Clears dirty if last_received_at still equals what the settler saw; bumps
 * settle_version and sets settled_at. Returns false if a span arrived since
 * (the trace stays dirty and will be settled again) or it was already settled.
 */
export async function markTraceSettled(database: Database, projectId: string, traceId: string, lastReceivedAtSeen: Date): Promise<boolean> {
  const rows = await database.db
    .update(traces)
    .set({
      dirty: false,
      dirtySince: null,
      settledAt: sql`now()`,
      settleVersion: sql`${traces.settleVersion} + 1`,
    })
    .where(and(eq(traces.projectId, projectId), eq(traces.traceId, traceId), eq(traces.dirty, true), eq(traces.lastReceivedAt, lastReceivedAtSeen)))
    .returning({ traceId: traces.traceId });
  return rows.length > 0;
}

/** Replaces the trace's agent list with the one attribution computed over the span tree. */
export async function updateTraceAgents(database: Database, projectId: string, traceId: string, agents: string[]): Promise<void> {
  await database.db
    .update(traces)
    .set({ agents })
    .where(and(eq(traces.projectId, projectId), eq(traces.traceId, traceId)));
}
