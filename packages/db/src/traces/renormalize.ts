/**
 * Re-derives the normalized columns of stored spans (docs/conventions.md §4) with the
 * normalizer as it is now, and asks for every trace read to be scored again.
 *
 * Ingest stores each span's normalized columns (operation, agent name, tool name, tokens,
 * error, ...) next to its raw attributes, which are kept whole; scoring reads the columns.
 * When the normalizer learns a convention, spans stored before keep the columns of the old
 * reading until this runs: it reads each trace's spans, normalizes them again from their raw
 * attributes, rewrites the columns that changed (moving the trace summary's counters by the
 * difference, so spans arriving meanwhile are not lost), clears the stored score's input hash
 * and requests a score. The worker re-scores the requested traces (its sweeper picks up
 * requests), so attribution changes reach stored traces too, even where no column changed.
 */
import type { DecodedSpan, StoredSpan } from "@crux/core";
import { queryRows, type Database } from "../client.ts";
import { bumpRequestText } from "../stages/settle.ts";
import { spanColumns, type SpanColumn } from "./span-codec.ts";
import { listTraceSpans } from "./reads.ts";

/** The columns normalizeSpan() derives: everything but the decoded span itself. */
const NORMALIZED_COLUMNS = new Set([
  "service_name",
  "operation",
  "convention",
  "agent_name",
  "agent_id",
  "model",
  "provider",
  "input_tokens",
  "output_tokens",
  "cached_tokens",
  "cost",
  "tool_name",
  "tool_call_id",
  "handoff_from",
  "handoff_to",
  "error_type",
  "is_error",
  "conversation_id",
  "tags",
]);
const normalizedColumns: readonly SpanColumn[] = spanColumns.filter((c) => NORMALIZED_COLUMNS.has(c.name));
const spanIdColumn = spanColumns.find((c) => c.name === "span_id") as SpanColumn;

// $1 project, $2 trace, $3 the changed spans as one JSON array of [span_id, ...normalized columns]
// rows, $4..$8 the summary counters' differences. Counters move by the difference rather than
// being recomputed, so spans inserted meanwhile (which add themselves) are counted once.
const setColumns = normalizedColumns
  .map((c, i) => `${c.name} = ${c.type === "jsonb" ? `e.r -> ${i + 1}` : c.type === "text" ? `e.r ->> ${i + 1}` : `(e.r ->> ${i + 1})::${c.type}`}`)
  .join(", ");
const renormalizeTraceText = `
  WITH changed AS (
    UPDATE spans s SET ${setColumns}
    FROM jsonb_array_elements($3::jsonb) AS e(r)
    WHERE s.project_id = $1 AND s.trace_id = $2 AND s.span_id = e.r ->> 0
    RETURNING 1
  ), unhashed AS (
    UPDATE trace_scores SET input_hash = NULL WHERE project_id = $1 AND trace_id = $2 RETURNING 1
  )
  UPDATE traces SET
    error_count = error_count + $4::int,
    llm_calls = llm_calls + $5::int,
    tool_calls = tool_calls + $6::int,
    raw_input_tokens = raw_input_tokens + $7::bigint,
    raw_output_tokens = raw_output_tokens + $8::bigint,
    has_error = error_count + $4::int > 0,
    score_requested_at = ${bumpRequestText("score_requested_at")}
  WHERE project_id = $1 AND trace_id = $2
  RETURNING (SELECT count(*) FROM changed)::int, (SELECT count(*) FROM unhashed)::int`;

const tracesPageText = (projectFilter: boolean) => `SELECT project_id, trace_id FROM traces
  WHERE (project_id, trace_id) > ($1, $2)${projectFilter ? " AND project_id = $4" : ""}
  ORDER BY project_id, trace_id LIMIT $3`;

export interface RenormalizeOptions {
  /** The normalizer as it is now (@crux/otlp normalizeSpan): the columns it derives replace the stored ones. */
  normalize: (span: DecodedSpan) => StoredSpan;
  /** Only this project's traces; all projects when absent. */
  projectId?: string;
  /** Traces listed per page (default 200). */
  pageSize?: number;
  /** Called after each trace, e.g. to print progress. */
  onTrace?: (progress: RenormalizeResult) => void;
}

export interface RenormalizeResult {
  /** Traces read, each now requested for scoring. */
  traces: number;
  spans: number;
  /** Spans whose normalized columns changed, and the traces they belong to. */
  spansChanged: number;
  tracesChanged: number;
}

export async function renormalizeStoredSpans(database: Database, opts: RenormalizeOptions): Promise<RenormalizeResult> {
  const pageSize = Math.max(1, Math.trunc(opts.pageSize ?? 200));
  const result: RenormalizeResult = { traces: 0, spans: 0, spansChanged: 0, tracesChanged: 0 };
  let after: [string, string] = ["", ""];
  for (;;) {
    const values: unknown[] = [after[0], after[1], pageSize];
    if (opts.projectId !== undefined) values.push(opts.projectId);
    const page = await queryRows(database, { text: tracesPageText(opts.projectId !== undefined), values });
    for (const [projectId, traceId] of page as [string, string][]) {
      const changed = await renormalizeTrace(database, opts.normalize, projectId, traceId);
      result.traces++;
      result.spans += changed.spans;
      result.spansChanged += changed.changed;
      if (changed.changed > 0) result.tracesChanged++;
      opts.onTrace?.(result);
      after = [projectId, traceId];
    }
    if (page.length < pageSize) return result;
  }
}

async function renormalizeTrace(
  database: Database,
  normalize: RenormalizeOptions["normalize"],
  projectId: string,
  traceId: string,
): Promise<{ spans: number; changed: number }> {
  const stored = await listTraceSpans(database, projectId, traceId);
  const rows: unknown[][] = [];
  const delta = { errors: 0, llm: 0, tools: 0, input: 0, output: 0 };
  for (const span of stored) {
    // The stored span is a decoded span plus its columns; the normalizer reads only the decoded part.
    const fresh = normalize(span);
    const before = normalizedColumns.map((c) => c.value(span));
    const now = normalizedColumns.map((c) => c.value(fresh));
    if (JSON.stringify(before) === JSON.stringify(now)) continue;
    rows.push([spanIdColumn.value(span), ...now]);
    delta.errors += Number(fresh.isError) - Number(span.isError);
    delta.llm += Number(fresh.operation === "llm") - Number(span.operation === "llm");
    delta.tools += Number(fresh.operation === "tool") - Number(span.operation === "tool");
    delta.input += positiveTokens(fresh, "input_tokens") - positiveTokens(span, "input_tokens");
    delta.output += positiveTokens(fresh, "output_tokens") - positiveTokens(span, "output_tokens");
  }
  await queryRows(database, {
    text: renormalizeTraceText,
    values: [projectId, traceId, JSON.stringify(rows), delta.errors, delta.llm, delta.tools, delta.input, delta.output],
  });
  return { spans: stored.length, changed: rows.length };
}

/** A token column as the trace summary sums it: stored (valid int4) and positive. */
function positiveTokens(span: StoredSpan, column: "input_tokens" | "output_tokens"): number {
  const value = normalizedColumns.find((c) => c.name === column)?.value(span);
  return typeof value === "number" && value > 0 ? value : 0;
}
