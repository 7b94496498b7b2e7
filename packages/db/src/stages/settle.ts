/**
 * The dirty flag and the score request (docs/architecture.md §6): insertSpanBatch
 * marks a trace dirty; the settle stage freezes a trace that went quiet (records
 * the hash of its span set) and clears the flag only if no span arrived meanwhile
 * (last_received_at strictly increases on every write). Freezing requests the
 * score stage; so does an outcome change. The score stage clears the request by
 * compare-and-set, so a request made while it runs is kept.
 */
import { and, asc, eq, isNotNull, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { queryRows, type Database } from "../client.ts";
import { spans, traces } from "../schema/traces.ts";

/** A request column of traces: the score request, or the judge request (judge-requests.ts). */
type RequestColumn = typeof traces.scoreRequestedAt | typeof traces.judgeRequestedAt;

/**
 * A new request value: now, and always later than the one it replaces (so a compare-and-set on the
 * old one fails), so never earlier than a request moved into the future (a deferred judge job).
 */
export const bumpRequestText = (column: string): string => `greatest(now(), coalesce(${column}, '-infinity'::timestamptz) + interval '1 millisecond')`;
const [bumpBefore, bumpAfter] = bumpRequestText("\u0000").split("\u0000") as [string, string];
export const bumpRequest = (column: RequestColumn): SQL => sql`${sql.raw(bumpBefore)}${column}${sql.raw(bumpAfter)}`;
export const bumpScoreRequest = bumpRequest(traces.scoreRequestedAt);

/** Settled traces whose request in `column` is older than quietBeforeMs (its job was lost, or its enqueue failed), oldest first. */
export async function listPastRequests(
  database: Database,
  column: RequestColumn & PgColumn,
  opts: { quietBeforeMs: number; limit: number },
): Promise<{ projectId: string; traceId: string; requestedAt: Date }[]> {
  const rows = await database.db
    .select({ projectId: traces.projectId, traceId: traces.traceId, requestedAt: column })
    .from(traces)
    .where(and(isNotNull(column), eq(traces.dirty, false), sql`${column} < now() - ${opts.quietBeforeMs}::double precision * interval '1 millisecond'`))
    .orderBy(asc(column))
    .limit(Math.max(1, Math.trunc(opts.limit)));
  return rows.map((r) => ({ projectId: r.projectId, traceId: r.traceId, requestedAt: r.requestedAt! }));
}

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

/** The trace's span ids (primary-key order): what the settle stage hashes, without reading any span body. */
export async function listSpanIds(database: Database, projectId: string, traceId: string): Promise<string[]> {
  const rows = await database.db
    .select({ spanId: spans.spanId })
    .from(spans)
    .where(and(eq(spans.projectId, projectId), eq(spans.traceId, traceId)))
    .orderBy(asc(spans.spanId));
  return rows.map((r) => r.spanId);
}

export interface SettleState {
  dirty: boolean;
  lastReceivedAt: Date;
  settleVersion: number;
  /** Primary-key order, as listSpanIds; read in the same snapshot as the row, so they agree. */
  spanIds: string[];
}

// Fixed texts, run unnamed with their values ($1 project, $2 trace): the settle stage runs both per
// trace, and building them through drizzle cost more client CPU than running them.
const settleStateStatement = `SELECT t.dirty, t.last_received_at, t.settle_version,
    ARRAY(SELECT s.span_id FROM spans s WHERE s.project_id = $1 AND s.trace_id = $2 ORDER BY s.span_id)
  FROM traces t WHERE t.project_id = $1 AND t.trace_id = $2 LIMIT 1`;

/** What the settle stage needs, in one round trip: the trace's dirty flag, last_received_at and span ids; null if unknown. */
export async function readSettleState(database: Database, projectId: string, traceId: string): Promise<SettleState | null> {
  const [row] = await queryRows(database, { text: settleStateStatement, values: [projectId, traceId] });
  if (!row) return null;
  return { dirty: row[0] as boolean, lastReceivedAt: row[1] as Date, settleVersion: row[2] as number, spanIds: row[3] as string[] };
}

// $3 = last_received_at as the settler saw it, $4 = the span-set hash.
const markSettledStatement = `UPDATE traces SET dirty = false, dirty_since = NULL, settled_at = now(),
    settle_version = settle_version + 1, span_set_hash = $4,
    score_requested_at = ${bumpRequestText("score_requested_at")}
  WHERE project_id = $1 AND trace_id = $2 AND dirty = true AND last_received_at = $3
  RETURNING trace_id`;

/**
 * Freezes the trace: clears dirty if last_received_at still equals what the
 * settler saw, records the hash of the span set it saw, bumps settle_version,
 * sets settled_at and requests the score stage. Returns false if a span
 * arrived since (the trace stays dirty and will be settled again) or it was
 * already settled.
 */
export async function markTraceSettled(
  database: Database,
  projectId: string,
  traceId: string,
  lastReceivedAtSeen: Date,
  spanSetHash: string,
): Promise<boolean> {
  const rows = await queryRows(database, { text: markSettledStatement, values: [projectId, traceId, lastReceivedAtSeen.toISOString(), spanSetHash] });
  return rows.length > 0;
}

/** Replaces the trace's agent list with the one attribution computed over the span tree. */
export async function updateTraceAgents(database: Database, projectId: string, traceId: string, agents: string[]): Promise<void> {
  await database.db
    .update(traces)
    .set({ agents })
    .where(and(eq(traces.projectId, projectId), eq(traces.traceId, traceId)));
}

export interface ScoreRequest {
  projectId: string;
  traceId: string;
  scoreRequestedAt: Date;
}

/**
 * Settled traces whose score request is older than quietBeforeMs (its job was lost, or its
 * enqueue failed), oldest first. Dirty traces are left to the settle sweep: their settle requests the score.
 */
export async function listScoreRequests(database: Database, opts: { quietBeforeMs: number; limit: number }): Promise<ScoreRequest[]> {
  const rows = await listPastRequests(database, traces.scoreRequestedAt, opts);
  return rows.map((r) => ({ projectId: r.projectId, traceId: r.traceId, scoreRequestedAt: r.requestedAt }));
}

/** Clears the score request if it is still the one the score stage read; false if a newer one was made meanwhile (it stays). */
export async function clearScoreRequest(database: Database, projectId: string, traceId: string, requestedAtSeen: Date): Promise<boolean> {
  const rows = await database.db
    .update(traces)
    .set({ scoreRequestedAt: null })
    .where(and(eq(traces.projectId, projectId), eq(traces.traceId, traceId), eq(traces.scoreRequestedAt, requestedAtSeen)))
    .returning({ traceId: traces.traceId });
  return rows.length > 0;
}

/**
 * Requests the score stage for the project's settled traces that started in [from, to) (either
 * bound optional), so a price or configuration change reaches traces scored before it: the
 * sweeper scores them once their request is past its quiet period, and a trace whose inputs did
 * not change is skipped by its input hash. Returns how many traces were asked for.
 */
export async function requestRescore(database: Database, projectId: string, range: { from?: Date; to?: Date } = {}): Promise<number> {
  const conditions = [eq(traces.projectId, projectId), isNotNull(traces.spanSetHash)];
  if (range.from) conditions.push(sql`${traces.startNs} >= ${BigInt(range.from.getTime()) * 1_000_000n}`);
  if (range.to) conditions.push(sql`${traces.startNs} < ${BigInt(range.to.getTime()) * 1_000_000n}`);
  const rows = await database.db
    .update(traces)
    .set({ scoreRequestedAt: bumpScoreRequest })
    .where(and(...conditions))
    .returning({ traceId: traces.traceId });
  return rows.length;
}
