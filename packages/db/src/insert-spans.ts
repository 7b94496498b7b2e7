/**
 * The ingest hot path. One transaction per request:
 *   1. INSERT INTO spans SELECT FROM unnest(one array per column)
 *      ON CONFLICT DO NOTHING RETURNING the keys actually inserted;
 *   2. one multi-row upsert of traces (unnest again) merging what those new
 *      spans add, marking the trace dirty.
 * An exporter retry of a committed batch therefore inserts nothing and leaves
 * the summaries unchanged. Rows are written in key order so two concurrent
 * batches touching the same traces lock them in the same order (no deadlock).
 */
import type { NormalizedSpan } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "./client.ts";
import { spanColumns } from "./span-codec.ts";
import { traceDeltas, type TraceDelta } from "./trace-delta.ts";

/** Spans per INSERT statement; bigger batches are split, still inside the one transaction. */
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
  spans: readonly NormalizedSpan[],
  opts: InsertSpanBatchOptions = {},
): Promise<InsertSpanBatchResult> {
  const chunkSize = Math.max(1, opts.chunkSize ?? defaultInsertChunkSize);
  const unique = dedupeLastWins(spans);
  const traceIds = [...new Set(unique.map((s) => s.traceId))];
  if (unique.length === 0) return { inserted: 0, duplicates: spans.length, traceIds };

  const inserted = await database.db.transaction(async (tx) => {
    const insertedKeys = new Set<string>();
    for (let i = 0; i < unique.length; i += chunkSize) {
      const result = await tx.execute(insertSpansSql(projectId, unique.slice(i, i + chunkSize)));
      for (const row of rowsOf(result)) insertedKeys.add(spanKey(String(row.trace_id), String(row.span_id)));
    }
    const newSpans = unique.filter((s) => insertedKeys.has(spanKey(s.traceId, s.spanId)));
    if (newSpans.length > 0) await tx.execute(upsertTracesSql(projectId, traceDeltas(newSpans)));
    return newSpans.length;
  });
  return { inserted, duplicates: spans.length - inserted, traceIds };
}

function spanKey(traceId: string, spanId: string): string {
  return `${traceId}/${spanId}`;
}

/** One span per (trace, span) id, the last occurrence winning, sorted by key. */
function dedupeLastWins(spans: readonly NormalizedSpan[]): NormalizedSpan[] {
  const byKey = new Map<string, NormalizedSpan>();
  for (const span of spans) byKey.set(spanKey(span.traceId, span.spanId), span);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, span]) => span);
}

function arrayParam(values: unknown[], type: string): SQL {
  return sql`${sql.param(values)}::${sql.raw(type)}[]`;
}

function insertSpansSql(projectId: string, spans: readonly NormalizedSpan[]): SQL {
  const names = spanColumns.map((c) => c.name);
  const arrays = spanColumns.map((c) =>
    arrayParam(
      spans.map((s) => c.value(s)),
      c.type === "jsonb" ? "text" : c.type,
    ),
  );
  const selected = spanColumns.map((c) => sql.raw(c.type === "jsonb" ? `u.${c.name}::jsonb` : `u.${c.name}`));
  return sql`
    INSERT INTO spans (project_id, ${sql.raw(names.join(", "))})
    SELECT ${projectId}, ${sql.join(selected, sql`, `)}
    FROM unnest(${sql.join(arrays, sql`, `)}) AS u(${sql.raw(names.join(", "))})
    ORDER BY u.trace_id, u.span_id
    ON CONFLICT DO NOTHING
    RETURNING trace_id, span_id`;
}

// A root replaces the stored one only if it is earlier: the same root wins whatever the arrival order.
const rootWins = sql.raw(`(excluded.root_span_id IS NOT NULL AND (t.root_span_id IS NULL
  OR (excluded.root_start_ns, excluded.root_span_id) < (t.root_start_ns, t.root_span_id)))`);

function upsertTracesSql(projectId: string, deltas: readonly TraceDelta[]): SQL {
  const col = <T>(pick: (d: TraceDelta) => T) => deltas.map(pick);
  return sql`
    INSERT INTO traces AS t (
      project_id, trace_id, service_name, root_span_id, root_name, root_start_ns, start_ns, end_ns,
      span_count, error_count, llm_calls, tool_calls, raw_input_tokens, raw_output_tokens,
      agents, has_error, first_received_at, last_received_at, dirty, dirty_since)
    SELECT ${projectId}, u.trace_id, u.service_name, u.root_span_id, u.root_name, u.root_start_ns, u.start_ns, u.end_ns,
      u.span_count, u.error_count, u.llm_calls, u.tool_calls, u.raw_input_tokens, u.raw_output_tokens,
      ARRAY(SELECT jsonb_array_elements_text(u.agents::jsonb)), u.has_error, now(), now(), true, now()
    FROM unnest(
      ${arrayParam(col((d) => d.traceId), "text")},
      ${arrayParam(col((d) => d.serviceName), "text")},
      ${arrayParam(col((d) => d.rootSpanId), "text")},
      ${arrayParam(col((d) => d.rootName), "text")},
      ${arrayParam(col((d) => d.rootStartNs?.toString() ?? null), "bigint")},
      ${arrayParam(col((d) => d.startNs.toString()), "bigint")},
      ${arrayParam(col((d) => d.endNs.toString()), "bigint")},
      ${arrayParam(col((d) => d.spanCount), "integer")},
      ${arrayParam(col((d) => d.errorCount), "integer")},
      ${arrayParam(col((d) => d.llmCalls), "integer")},
      ${arrayParam(col((d) => d.toolCalls), "integer")},
      ${arrayParam(col((d) => String(d.rawInputTokens)), "bigint")},
      ${arrayParam(col((d) => String(d.rawOutputTokens)), "bigint")},
      ${arrayParam(col((d) => JSON.stringify(d.agents)), "text")},
      ${arrayParam(col((d) => d.hasError), "boolean")}
    ) AS u(trace_id, service_name, root_span_id, root_name, root_start_ns, start_ns, end_ns,
           span_count, error_count, llm_calls, tool_calls, raw_input_tokens, raw_output_tokens, agents, has_error)
    ORDER BY u.trace_id
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
      dirty_since = coalesce(t.dirty_since, now())`;
}
