/** Read side of traces: listing with filters and keyset pagination, and one trace with its spans. */
import { PermanentError, type NormalizedSpan } from "@crux/core";
import { and, arrayContains, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { queryRows, type Database } from "./client.ts";
import { traces, type TraceRow } from "./schema.ts";
import { spanFromRowJson, spanRowJsonSql } from "./span-codec.ts";

export type TraceSummary = TraceRow;

export interface ListTracesQuery {
  service?: string;
  /** Traces whose agents list contains this agent name. */
  agent?: string;
  /** Inclusive lower bound on the trace start (ns since epoch). */
  fromNs?: bigint;
  /** Exclusive upper bound on the trace start (ns since epoch). */
  toNs?: bigint;
  hasError?: boolean;
  /** nextCursor of the previous page. */
  cursor?: string;
  /** Page size, clamped to 1..maxListTracesLimit. */
  limit: number;
}

export const maxListTracesLimit = 1_000;

interface Cursor {
  startNs: bigint;
  traceId: string;
}

export function encodeTraceCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.startNs.toString(), c.traceId]), "utf8").toString("base64url");
}

/** Throws PermanentError("invalid_cursor") on anything encodeTraceCursor did not produce. */
export function decodeTraceCursor(cursor: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === "string" &&
      /^-?\d{1,20}$/.test(parsed[0]) &&
      typeof parsed[1] === "string" &&
      /^[0-9a-f]{32}$/.test(parsed[1])
    ) {
      const startNs = BigInt(parsed[0]);
      // start_ns is int8: a number outside it would fail in Postgres (a 500) instead of here.
      if (startNs >= -(2n ** 63n) && startNs < 2n ** 63n) return { startNs, traceId: parsed[1] };
    }
  } catch {
    // fall through
  }
  throw new PermanentError("invalid_cursor", "cursor is not one this API returned");
}

/** Newest first (start_ns desc, trace_id desc); keyset pagination, never OFFSET. */
export async function listTraces(database: Database, projectId: string, q: ListTracesQuery): Promise<{ items: TraceSummary[]; nextCursor: string | null }> {
  const limit = Math.max(1, Math.min(Math.trunc(q.limit), maxListTracesLimit));
  const conditions: SQL[] = [eq(traces.projectId, projectId)];
  if (q.service !== undefined) conditions.push(eq(traces.serviceName, q.service));
  if (q.agent !== undefined) conditions.push(arrayContains(traces.agents, [q.agent]));
  if (q.fromNs !== undefined) conditions.push(gte(traces.startNs, q.fromNs));
  if (q.toNs !== undefined) conditions.push(lt(traces.startNs, q.toNs));
  if (q.hasError !== undefined) conditions.push(eq(traces.hasError, q.hasError));
  if (q.cursor !== undefined) {
    const c = decodeTraceCursor(q.cursor);
    conditions.push(sql`(${traces.startNs}, ${traces.traceId}) < (${c.startNs.toString()}::bigint, ${c.traceId})`);
  }
  const rows = await database.db
    .select()
    .from(traces)
    .where(and(...conditions))
    .orderBy(desc(traces.startNs), desc(traces.traceId))
    .limit(limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor = rows.length > limit && last ? encodeTraceCursor({ startNs: last.startNs, traceId: last.traceId }) : null;
  return { items, nextCursor };
}

/** The trace's summary row alone (no span is read); null if unknown. */
export async function getTraceSummary(database: Database, projectId: string, traceId: string): Promise<TraceSummary | null> {
  const [trace] = await database.db
    .select()
    .from(traces)
    .where(and(eq(traces.projectId, projectId), eq(traces.traceId, traceId)))
    .limit(1);
  return trace ?? null;
}

/** Spans per query of getTrace: a page is decoded in well under 100 ms, even on PGlite. */
const getTraceSpansPageSize = 1_000;

/**
 * The trace summary and every stored span (ordered by start, then span id); null if unknown.
 * Spans are read in keyset pages with an event-loop turn between them, so a trace of 10,000
 * spans does not hold the process for a second in one query (PGlite runs in this thread).
 * A span stored while the pages are read may be missing, but it bumped the trace's
 * last_received_at, so the settle that used this read does not clear the dirty flag.
 */
export async function getTrace(
  database: Database,
  projectId: string,
  traceId: string,
  opts: { pageSize?: number } = {},
): Promise<{ trace: TraceSummary; spans: NormalizedSpan[] } | null> {
  const trace = await getTraceSummary(database, projectId, traceId);
  if (!trace) return null;
  return { trace, spans: await listTraceSpans(database, projectId, traceId, opts) };
}

// Fixed texts ($1 project, $2 trace, $3 page size; $4, $5 the last row's start and span id), run
// unnamed with their values: the score stage reads every trace this way, and building the select
// through drizzle and mapping its rows cost more client CPU than the read itself.
const spansPageText = (after: string) => `SELECT ${spanRowJsonSql("s")} FROM spans s
  WHERE s.project_id = $1 AND s.trace_id = $2${after}
  ORDER BY s.start_ns, s.span_id LIMIT $3`;
const firstSpansPageStatement = spansPageText("");
const nextSpansPageStatement = spansPageText(" AND (s.start_ns, s.span_id) > ($4::bigint, $5)");

/** Every stored span of the trace (ordered by start, then span id), in keyset pages as getTrace reads them; [] if unknown. */
export async function listTraceSpans(database: Database, projectId: string, traceId: string, opts: { pageSize?: number } = {}): Promise<NormalizedSpan[]> {
  const pageSize = Math.max(1, Math.trunc(opts.pageSize ?? getTraceSpansPageSize));
  const result: NormalizedSpan[] = [];
  let after: NormalizedSpan | null = null;
  for (;;) {
    const rows = await queryRows(
      database,
      after === null
        ? { text: firstSpansPageStatement, values: [projectId, traceId, pageSize] }
        : { text: nextSpansPageStatement, values: [projectId, traceId, pageSize, after.startTimeUnixNano.toString(), after.spanId] },
    );
    for (const row of rows) result.push(spanFromRowJson(row[0] as string));
    after = result[result.length - 1] ?? null;
    if (rows.length < pageSize || after === null) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return result;
}
