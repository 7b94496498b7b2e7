/**
 * The ingest hot path: ONE statement per batch (chunk), so the database never
 * waits on the client inside a transaction:
 *   WITH ins AS (INSERT INTO spans SELECT FROM jsonb_array_elements(the batch
 *                as one JSON array of rows) ON CONFLICT DO NOTHING RETURNING
 *                what the summary needs),
 *        agg AS (per-trace aggregates of the rows actually inserted),
 *        up  AS (upsert of traces merging agg, marking the trace dirty)
 *   SELECT count(*) FROM ins
 * An exporter retry of a committed batch therefore inserts nothing and leaves
 * the summaries unchanged. Rows are written in key order (sorted here, kept by
 * ORDER BY ord) so two concurrent batches touching the same traces lock them
 * in the same order (no deadlock).
 * A batch larger than one chunk runs its statements in one transaction.
 */
import type { StoredSpan } from "@crux/core";
import type { Database } from "../client.ts";
import { spanColumns, spanRowsJson } from "./span-codec.ts";

/** Name of the prepared insert statement on each Postgres connection (visible in pg_prepared_statements). */
export const insertSpanBatchStatementName = "crux_insert_span_batch";

/** Spans per statement; bigger batches are split, still inside one transaction. */
export const defaultInsertChunkSize = 5_000;

export interface InsertSpanBatchResult {
  /** Spans newly stored. */
  inserted: number;
  /** Input spans not newly stored: already in the database, or repeated inside the batch. */
  duplicates: number;
  /** Every distinct trace id of the batch, including all-duplicate ones (a retry must re-enqueue them). */
  traceIds: string[];
}

export interface InsertSpanBatchOptions {
  chunkSize?: number;
}

export async function insertSpanBatch(
  database: Database,
  projectId: string,
  spans: readonly StoredSpan[],
  opts: InsertSpanBatchOptions = {},
): Promise<InsertSpanBatchResult> {
  const chunkSize = Math.max(1, opts.chunkSize ?? defaultInsertChunkSize);
  const unique = dedupeLastWins(spans);
  const traceIds = [...new Set(unique.map((s) => s.traceId))];
  if (unique.length === 0) return { inserted: 0, duplicates: spans.length, traceIds };

  const chunks: string[] = [];
  for (let i = 0; i < unique.length; i += chunkSize) chunks.push(spanRowsJson(unique.slice(i, i + chunkSize)));
  const inserted = await runInsertStatements(database, projectId, chunks);
  return { inserted, duplicates: spans.length - inserted, traceIds };
}

/** Runs the statement once per chunk: alone when there is one (a statement is atomic), else in one transaction. */
async function runInsertStatements(database: Database, projectId: string, chunks: readonly string[]): Promise<number> {
  const insertedBy = (result: { rows: unknown[] }) => Number((result.rows[0] as { inserted?: number } | undefined)?.inserted ?? 0);
  if (database.kind === "pglite") {
    const run = (q: Pick<typeof database.pglite, "query">, rows: string) => q.query(insertSpanBatchSql, [projectId, rows]).then(insertedBy);
    if (chunks.length === 1) return run(database.pglite, chunks[0]!);
    return database.pglite.transaction(async (tx) => {
      let n = 0;
      for (const rows of chunks) n += await run(tx, rows);
      return n;
    });
  }
  // Named: node-postgres prepares it once per pooled connection and then only binds and executes.
  const name = database.namedStatements ? insertSpanBatchStatementName : undefined;
  const statement = (rows: string) => ({ name, text: insertSpanBatchSql, values: [projectId, rows] });
  if (chunks.length === 1) return insertedBy(await database.pool.query(statement(chunks[0]!)));
  const client = await database.pool.connect();
  try {
    await client.query("BEGIN");
    let n = 0;
    for (const rows of chunks) n += insertedBy(await client.query(statement(rows)));
    await client.query("COMMIT");
    client.release();
    return n;
  } catch (err) {
    // A connection whose ROLLBACK failed is discarded rather than returned to the pool mid-transaction.
    const rollbackFailed = await client.query("ROLLBACK").then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
    );
    client.release(rollbackFailed);
    throw err;
  }
}

function spanKey(traceId: string, spanId: string): string {
  return `${traceId}/${spanId}`;
}

/** One span per (trace, span) id, the last occurrence winning, sorted by key. */
function dedupeLastWins(spans: readonly StoredSpan[]): StoredSpan[] {
  const byKey = new Map<string, StoredSpan>();
  for (const span of spans) byKey.set(spanKey(span.traceId, span.spanId), span);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, span]) => span);
}

// A root replaces the stored one only if it is earlier: the same root wins whatever the arrival order.
const rootWins = `(excluded.root_span_id IS NOT NULL AND (t.root_span_id IS NULL
  OR (excluded.root_start_ns, excluded.root_span_id) < (t.root_start_ns, t.root_span_id)))`;

// Each row is a JSON array in spanColumns order: text via ->>, jsonb via -> (no re-parse), others cast.
const spanNames = spanColumns.map((c) => c.name).join(", ");
const rowValues = spanColumns.map((c, i) => (c.type === "jsonb" ? `e.r -> ${i}` : c.type === "text" ? `e.r ->> ${i}` : `(e.r ->> ${i})::${c.type}`)).join(", ");

// $1 = project id, $2 = the chunk as one JSON array of rows (spanRowsJson). The whole batch travels
// as ONE jsonb parameter: measured against one array parameter per column (unnest), it halves the
// client's CPU per batch and costs Postgres no more. The text is constant, so Postgres keeps it as a
// prepared statement per connection and skips parsing and planning it for every batch.
// agg mirrors the summary rules: the root is the earliest parentless span (start, span id); the
// service is the root's, else the earliest span's; tokens sum the stored (valid, positive) counts.
const insertSpanBatchSql = `
    WITH ins AS (
      INSERT INTO spans (project_id, ${spanNames})
      SELECT $1::text, ${rowValues}
      FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(r, ord)
      ORDER BY e.ord
      ON CONFLICT DO NOTHING
      RETURNING trace_id, span_id, parent_span_id, name, start_ns, end_ns, service_name, operation, agent_name, is_error, input_tokens, output_tokens
    ), agg AS (
      SELECT trace_id,
        (array_agg(service_name ORDER BY (parent_span_id IS NOT NULL), start_ns, span_id))[1] AS service_name,
        (array_agg(span_id ORDER BY start_ns, span_id) FILTER (WHERE parent_span_id IS NULL))[1] AS root_span_id,
        (array_agg(name ORDER BY start_ns, span_id) FILTER (WHERE parent_span_id IS NULL))[1] AS root_name,
        min(start_ns) FILTER (WHERE parent_span_id IS NULL) AS root_start_ns,
        min(start_ns) AS start_ns,
        max(end_ns) AS end_ns,
        count(*)::int AS span_count,
        (count(*) FILTER (WHERE is_error))::int AS error_count,
        (count(*) FILTER (WHERE operation = 'llm'))::int AS llm_calls,
        (count(*) FILTER (WHERE operation = 'tool'))::int AS tool_calls,
        coalesce(sum(input_tokens) FILTER (WHERE input_tokens > 0), 0)::bigint AS raw_input_tokens,
        coalesce(sum(output_tokens) FILTER (WHERE output_tokens > 0), 0)::bigint AS raw_output_tokens,
        coalesce(array_agg(DISTINCT agent_name ORDER BY agent_name) FILTER (WHERE operation = 'agent' AND agent_name <> ''), '{}') AS agents,
        bool_or(is_error) AS has_error
      FROM ins GROUP BY trace_id
    ), up AS (
      INSERT INTO traces AS t (
        project_id, trace_id, service_name, root_span_id, root_name, root_start_ns, start_ns, end_ns,
        span_count, error_count, llm_calls, tool_calls, raw_input_tokens, raw_output_tokens,
        agents, has_error, first_received_at, last_received_at, dirty, dirty_since)
      SELECT $1::text, a.trace_id, a.service_name, a.root_span_id, a.root_name, a.root_start_ns, a.start_ns, a.end_ns,
        a.span_count, a.error_count, a.llm_calls, a.tool_calls, a.raw_input_tokens, a.raw_output_tokens,
        a.agents, a.has_error, now(), now(), true, now()
      FROM agg a
      ORDER BY a.trace_id
      ON CONFLICT (project_id, trace_id) DO UPDATE SET
        service_name = CASE WHEN ${rootWins} THEN coalesce(excluded.service_name, t.service_name)
                            ELSE coalesce(t.service_name, excluded.service_name) END,
        root_span_id = CASE WHEN ${rootWins} THEN excluded.root_span_id ELSE t.root_span_id END,
        root_name = CASE WHEN ${rootWins} THEN excluded.root_name ELSE t.root_name END,
        root_start_ns = CASE WHEN ${rootWins} THEN excluded.root_start_ns ELSE t.root_start_ns END,
        start_ns = least(t.start_ns, excluded.start_ns),
        end_ns = greatest(t.end_ns, excluded.end_ns),
        span_count = t.span_count + excluded.span_count,
        error_count = t.error_count + excluded.error_count,
        llm_calls = t.llm_calls + excluded.llm_calls,
        tool_calls = t.tool_calls + excluded.tool_calls,
        raw_input_tokens = t.raw_input_tokens + excluded.raw_input_tokens,
        raw_output_tokens = t.raw_output_tokens + excluded.raw_output_tokens,
        agents = ARRAY(SELECT DISTINCT a FROM unnest(t.agents || excluded.agents) AS a ORDER BY a),
        has_error = t.has_error OR excluded.has_error,
        -- Strictly increasing, so markTraceSettled sees every arrival even within one millisecond.
        last_received_at = greatest(now(), t.last_received_at + interval '1 millisecond'),
        dirty = true,
        dirty_since = coalesce(t.dirty_since, now())
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM up)::int AS traces`;
