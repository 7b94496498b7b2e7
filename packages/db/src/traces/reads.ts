/** Read side of traces: listing with filters and keyset pagination, and one trace with its spans. */
import { setImmediate as nextTurn } from "node:timers/promises";
import { compareSpansByStart, PermanentError, type StoredSpan } from "@crux/core";
import { and, arrayContains, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { queryRows, type Database } from "../client.ts";
import { judgeFindings } from "../schema/judges.ts";
import { traceAttributions, traceFindings, traceScores } from "../schema/scores.ts";
import { spans, traces, type TraceRow } from "../schema/traces.ts";
import { descAlongIndex } from "../sql/util.ts";
import { spanFromRowJson, spanRowJsonSql } from "./span-codec.ts";

export type TraceSummary = TraceRow;

/** A row of the runs list: the trace summary and what its stored score set says (null / empty until scored). */
export interface TraceListRow extends TraceSummary {
  scored: boolean;
  /** The stored score's outcome; null when none says or not scored. */
  success: boolean | null;
  taskId: string | null;
  isBaseline: boolean | null;
  totalTokens: number | null;
  costUsd: number | null;
  /** Distinct MAST modes of the code findings and the judges' current findings, sorted. */
  findingModes: string[];
  findingCount: number;
  /** The code attribution's rank-1 agent and span. */
  attributedAgent: string | null;
  attributedSpanId: string | null;
}

export interface ListTracesQuery {
  service?: string | undefined;
  /** Traces whose agents list contains this agent name. */
  agent?: string | undefined;
  /** Inclusive lower bound on the trace start (ns since epoch). */
  fromNs?: bigint | undefined;
  /** Exclusive upper bound on the trace start (ns since epoch). */
  toNs?: bigint | undefined;
  hasError?: boolean | undefined;
  /** The stored outcome; "unknown" = no outcome or not scored. */
  outcome?: "success" | "failed" | "unknown" | undefined;
  /** Runs with a finding of this mode / category, among the findings of `source` (default both). */
  mode?: string | undefined;
  category?: string | undefined;
  source?: "code" | "judge" | "all" | undefined;
  taskId?: string | undefined;
  isBaseline?: boolean | undefined;
  /** Runs tagged with this experiment id (crux.experiment.id). */
  experimentId?: string | undefined;
  /** Re-runs of this replay (crux.replay.id). */
  replayId?: string | undefined;
  /** Runs of any of these variants of the experiment or replay, as the report names them ("baseline" / "default" for runs without crux.variant). */
  variants?: readonly string[] | undefined;
  /** Free text: every word must start a word of some span's name or attributes. */
  text?: string | undefined;
  /** nextCursor of the previous page. */
  cursor?: string | undefined;
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

/**
 * The text spans_search_idx indexes (schema/traces.ts): the planner uses the index only for this exact
 * expression.
 */
const spanSearchText = sql`to_tsvector('simple'::regconfig, regexp_replace(left(${spans.name} || ' ' || ${spans.attributes}::text, 32768), '\\\\(u[0-9a-fA-F]{4}|.)', ' ', 'g'))`;

/**
 * A tsquery of every word of `text`, each a prefix ('tool' matches 'tool_call'): words are what
 * to_tsvector('simple') splits on, so the query is split the same way and quoted (no operator of
 * the user's text is read as tsquery syntax). Null when the text has no word at all.
 */
function wordPrefixQuery(text: string): string | null {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w.length > 0)
    .slice(0, 16);
  if (words.length === 0) return null;
  return words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(" & ");
}

function findingExists(table: typeof traceFindings | typeof judgeFindings, column: "mode" | "category", value: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${table} f WHERE f.project_id = ${traces.projectId} AND f.trace_id = ${traces.traceId} AND f.${sql.identifier(column)} = ${value})`;
}

/**
 * Runs of any of the variants, named as the experiment report names them: a run without
 * crux.variant is "baseline" when baseline-tagged, else "default". The tagged names compare on
 * the variant column itself, so the (project, experiment, variant) and (project, replay, variant)
 * indexes serve it.
 */
function variantIn(names: readonly string[]): SQL {
  const alternatives: SQL[] = [
    sql`${traceScores.variant} IN (${sql.join(
      names.map((n) => sql`${n}`),
      sql`, `,
    )})`,
  ];
  if (names.includes("baseline")) alternatives.push(sql`(${traceScores.variant} IS NULL AND ${traceScores.isBaseline})`);
  if (names.includes("default")) alternatives.push(sql`(${traceScores.variant} IS NULL AND NOT ${traceScores.isBaseline})`);
  return sql`(${sql.join(alternatives, sql` OR `)})`;
}

/** The list's query, not yet run (null when it can match nothing); its own function so a test can read its plan. */
export function listTracesSelect(database: Database, projectId: string, q: ListTracesQuery, limit: number) {
  const conditions: SQL[] = [eq(traces.projectId, projectId)];
  if (q.service !== undefined) conditions.push(eq(traces.serviceName, q.service));
  if (q.agent !== undefined) conditions.push(arrayContains(traces.agents, [q.agent]));
  if (q.fromNs !== undefined) conditions.push(gte(traces.startNs, q.fromNs));
  if (q.toNs !== undefined) conditions.push(lt(traces.startNs, q.toNs));
  if (q.hasError !== undefined) conditions.push(eq(traces.hasError, q.hasError));
  if (q.outcome === "success") conditions.push(sql`${traceScores.success} IS TRUE`);
  if (q.outcome === "failed") conditions.push(sql`${traceScores.success} IS FALSE`);
  if (q.outcome === "unknown") conditions.push(sql`${traceScores.success} IS NULL`);
  if (q.taskId !== undefined) conditions.push(eq(traceScores.taskId, q.taskId));
  if (q.isBaseline === true) conditions.push(sql`${traceScores.isBaseline} IS TRUE`);
  if (q.isBaseline === false) conditions.push(sql`${traceScores.isBaseline} IS NOT TRUE`);
  if (q.experimentId !== undefined) conditions.push(eq(traceScores.experimentId, q.experimentId));
  if (q.replayId !== undefined) conditions.push(eq(traceScores.replayId, q.replayId));
  if (q.variants !== undefined) conditions.push(variantIn(q.variants));
  for (const column of ["mode", "category"] as const) {
    const value = q[column];
    if (value === undefined) continue;
    const source = q.source ?? "all";
    const code = findingExists(traceFindings, column, value);
    const judge = findingExists(judgeFindings, column, value);
    conditions.push(source === "code" ? code : source === "judge" ? judge : sql`(${code} OR ${judge})`);
  }
  if (q.text !== undefined) {
    const query = wordPrefixQuery(q.text);
    // A text of no word at all (only punctuation) matches nothing rather than everything.
    if (query === null) return null;
    conditions.push(
      sql`${traces.traceId} IN (SELECT ${spans.traceId} FROM ${spans} WHERE ${spans.projectId} = ${projectId} AND ${spanSearchText} @@ to_tsquery('simple'::regconfig, ${query}))`,
    );
  }
  if (q.cursor !== undefined) {
    const c = decodeTraceCursor(q.cursor);
    conditions.push(sql`(${traces.startNs}, ${traces.traceId}) < (${c.startNs.toString()}::bigint, ${c.traceId})`);
  }
  const sameTrace = (t: typeof traceFindings | typeof judgeFindings | typeof traceAttributions) =>
    sql`${t.projectId} = ${traces.projectId} AND ${t.traceId} = ${traces.traceId}`;
  return database.db
    .select({
      trace: traces,
      scored: sql<boolean>`${traceScores.traceId} IS NOT NULL`,
      success: traceScores.success,
      taskId: traceScores.taskId,
      isBaseline: traceScores.isBaseline,
      totalTokens: traceScores.totalTokens,
      costUsd: traceScores.costUsd,
      findingModes: sql<string[] | null>`(SELECT array_agg(DISTINCT m.mode ORDER BY m.mode) FROM (
        SELECT ${traceFindings.mode} AS mode FROM ${traceFindings} WHERE ${sameTrace(traceFindings)}
        UNION ALL SELECT ${judgeFindings.mode} FROM ${judgeFindings} WHERE ${sameTrace(judgeFindings)}) m)`,
      findingCount: sql<string>`((SELECT count(*) FROM ${traceFindings} WHERE ${sameTrace(traceFindings)})
        + (SELECT count(*) FROM ${judgeFindings} WHERE ${sameTrace(judgeFindings)}))`,
      attributed: sql<string | null>`(SELECT json_build_array(${traceAttributions.agent}, ${traceAttributions.spanId})::text FROM ${traceAttributions}
        WHERE ${sameTrace(traceAttributions)} ORDER BY ${traceAttributions.rank}, ${traceAttributions.ord} LIMIT 1)`,
    })
    .from(traces)
    .leftJoin(traceScores, and(eq(traceScores.projectId, traces.projectId), eq(traceScores.traceId, traces.traceId)))
    .where(and(...conditions))
    .orderBy(descAlongIndex(traces.startNs), descAlongIndex(traces.traceId))
    .limit(limit + 1);
}

/**
 * Newest first (start_ns desc, trace_id desc); keyset pagination, never OFFSET. Each row carries
 * its stored score's outcome, tokens, cost and task, its finding modes (code and judges) and the
 * code attribution's rank 1; filters on them run in the same statement on their indexes.
 */
export async function listTraces(database: Database, projectId: string, q: ListTracesQuery): Promise<{ items: TraceListRow[]; nextCursor: string | null }> {
  const limit = Math.max(1, Math.min(Math.trunc(q.limit), maxListTracesLimit));
  const select = listTracesSelect(database, projectId, q, limit);
  if (select === null) return { items: [], nextCursor: null };
  const rows = await select;
  const items = rows.slice(0, limit).map((r): TraceListRow => {
    const [attributedAgent, attributedSpanId] = r.attributed === null ? [null, null] : (JSON.parse(r.attributed) as [string | null, string | null]);
    return {
      ...r.trace,
      scored: r.scored,
      success: r.success,
      taskId: r.taskId,
      isBaseline: r.isBaseline,
      totalTokens: r.totalTokens,
      costUsd: r.costUsd,
      findingModes: r.findingModes ?? [],
      findingCount: Number(r.findingCount),
      attributedAgent,
      attributedSpanId,
    };
  });
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
 * Spans come as stored: a reader that needs their content and run tags applies the normalizer's
 * addContent (@crux/otlp) to each.
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
): Promise<{ trace: TraceSummary; spans: StoredSpan[] } | null> {
  const trace = await getTraceSummary(database, projectId, traceId);
  if (!trace) return null;
  return { trace, spans: await listTraceSpans(database, projectId, traceId, opts) };
}

// Fixed texts ($1 project, $2 trace, $3 page size; $4 the last row's span id), run unnamed with
// their values: the score stage reads every trace this way, and building the select through
// drizzle and mapping its rows cost more client CPU than the read itself. Pages follow the primary
// key (project, trace, span id), which reads them in order; paging by start time sorted every
// remaining span for each page (300 ms for the first page of 10,000 spans on PGlite).
const spansPageText = (after: string) => `SELECT ${spanRowJsonSql("s")} FROM spans s
  WHERE s.project_id = $1 AND s.trace_id = $2${after}
  ORDER BY s.span_id LIMIT $3`;
const firstSpansPageStatement = spansPageText("");
const nextSpansPageStatement = spansPageText(" AND s.span_id > $4");

/** Every stored span of the trace (ordered by start, then span id), in keyset pages as getTrace reads them; [] if unknown. */
export async function listTraceSpans(database: Database, projectId: string, traceId: string, opts: { pageSize?: number } = {}): Promise<StoredSpan[]> {
  const pageSize = Math.max(1, Math.trunc(opts.pageSize ?? getTraceSpansPageSize));
  const result: StoredSpan[] = [];
  for (;;) {
    const after = result[result.length - 1];
    const rows = await queryRows(
      database,
      after === undefined
        ? { text: firstSpansPageStatement, values: [projectId, traceId, pageSize] }
        : { text: nextSpansPageStatement, values: [projectId, traceId, pageSize, after.spanId] },
    );
    for (const row of rows) result.push(spanFromRowJson(row[0] as string));
    if (rows.length < pageSize) break;
    await nextTurn();
  }
  return result.sort(compareSpansByStart);
}
