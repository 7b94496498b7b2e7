/**
 * Per-agent usage over a window: token and cost totals, calls, errors, share
 * of all agents' tokens; optionally a time series per bucket. Agents are
 * ordered by total tokens (desc, then name) and keyset-paginated. Reads the
 * hourly rollups (rollups/rollups.ts) except for a series whose buckets split hours.
 */
import { ratioOrNull } from "@crux/core";
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { agentRowsWhere, type MetricsFilter } from "./filter.ts";
import { rollupRows } from "./rollup-source.ts";
import { agentRollup, hourNs, traceRollup } from "../rollups/rollups.ts";
import { clampLimit, decodeCursor, encodeCursor, num } from "../sql/util.ts";

export interface AgentUsageTotals {
  /** Token sums over the rows whose tracer reported tokens; null when none did (unknown, not 0). */
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  totalTokens: number | null;
  /** Sum over the rows with a known cost; see unpricedRows. Null when no row reported tokens. */
  costUsd: number | null;
  /** False when no trace-agent row reported token counts: the sums above are then null. */
  tokensReported: boolean;
  /** Trace-agent rows whose tracer reported no token counts, left out of the sums (they count 0 there). */
  tokensNotReportedRows: number;
  /** Trace-agent rows whose cost is unknown (an unpriced model). */
  unpricedRows: number;
  llmCalls: number;
  toolCalls: number;
  spans: number;
  errors: number;
  traces: number;
}

export interface AgentMetrics extends AgentUsageTotals {
  agent: string;
  /** Share of all agents' tokens in the window (not only this page). */
  tokenShare: number | null;
  costShare: number | null;
}

export interface AgentSeriesPoint extends AgentUsageTotals {
  agent: string;
  bucketStartNs: bigint;
}

export interface AgentsResult {
  totals: AgentUsageTotals & { agents: number };
  agents: AgentMetrics[];
  nextCursor: string | null;
  series: AgentSeriesPoint[] | null;
}

const sums = sql.raw(`
  coalesce(sum(a.input_tokens), 0)::float8 AS input_tokens,
  coalesce(sum(a.output_tokens), 0)::float8 AS output_tokens,
  coalesce(sum(a.cached_tokens), 0)::float8 AS cached_tokens,
  coalesce(sum(a.cost_usd), 0)::float8 AS cost_usd,
  (count(*) - count(a.cost_usd))::int AS unpriced_rows,
  coalesce(sum(a.llm_calls), 0)::float8 AS llm_calls,
  coalesce(sum(a.tool_calls), 0)::float8 AS tool_calls,
  coalesce(sum(a.spans), 0)::float8 AS spans,
  coalesce(sum(a.errors), 0)::float8 AS errors,
  count(*) FILTER (WHERE NOT a.tokens_reported)::int AS unreported_rows,
  count(*)::int AS usage_rows,
  count(*)::int AS traces`);

// The same columns over rollup cells (alias a).
const cellSums = sql.raw(`
  coalesce(sum(a.input_tokens), 0)::float8 AS input_tokens,
  coalesce(sum(a.output_tokens), 0)::float8 AS output_tokens,
  coalesce(sum(a.cached_tokens), 0)::float8 AS cached_tokens,
  coalesce(sum(a.cost_usd), 0)::float8 AS cost_usd,
  coalesce(sum(a.usage_rows) - sum(a.cost_rows), 0)::int AS unpriced_rows,
  coalesce(sum(a.llm_calls), 0)::float8 AS llm_calls,
  coalesce(sum(a.tool_calls), 0)::float8 AS tool_calls,
  coalesce(sum(a.spans), 0)::float8 AS spans,
  coalesce(sum(a.errors), 0)::float8 AS errors,
  coalesce(sum(a.tokens_unreported_rows), 0)::int AS unreported_rows,
  coalesce(sum(a.usage_rows), 0)::int AS usage_rows,
  coalesce(sum(a.usage_rows), 0)::int AS traces`);

/** Sums of the columns above; `usage_rows` and `unreported_rows` say whether any row reported tokens. */
function totalsOf(r: Record<string, unknown>): AgentUsageTotals {
  const unreported = num(r.unreported_rows);
  // Rows without reported tokens count 0 in the sums: with no other row, the sums say nothing.
  const reported = num(r.usage_rows) > unreported;
  const known = (v: number) => (reported ? v : null);
  const inputTokens = num(r.input_tokens);
  const outputTokens = num(r.output_tokens);
  return {
    inputTokens: known(inputTokens),
    outputTokens: known(outputTokens),
    cachedTokens: known(num(r.cached_tokens)),
    totalTokens: known(inputTokens + outputTokens),
    costUsd: known(num(r.cost_usd)),
    tokensReported: reported,
    tokensNotReportedRows: unreported,
    unpricedRows: num(r.unpriced_rows),
    llmCalls: num(r.llm_calls),
    toolCalls: num(r.tool_calls),
    spans: num(r.spans),
    errors: num(r.errors),
    traces: num(r.traces),
  };
}

export async function agentMetrics(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { cursor?: string | undefined; limit?: number | undefined; bucketNs?: bigint | undefined },
): Promise<AgentsResult> {
  const db = database.db;
  const cells = rollupRows(agentRollup, projectId, filter);
  const onlyAgent = filter.agent === undefined ? sql`true` : sql`a.agent = ${filter.agent}`;
  const limit = clampLimit(opts.limit);
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, 2);
  // [total tokens, agent], as encoded below: a string where the number goes would compare as NaN.
  if (after !== null && (typeof after[0] !== "number" || typeof after[1] !== "string")) decodeCursor("", 2);
  const afterWhere =
    after === null
      ? sql``
      : sql`WHERE (per.input_tokens + per.output_tokens) < ${Number(after[0])}::float8
             OR ((per.input_tokens + per.output_tokens) = ${Number(after[0])}::float8 AND per.agent > ${String(after[1])})`;
  const rows = rowsOf(
    await db.execute(sql`
      WITH per AS (SELECT a.agent, ${cellSums} FROM ${cells} a WHERE ${onlyAgent} GROUP BY a.agent HAVING sum(a.usage_rows) > 0),
      tot AS (SELECT coalesce(sum(input_tokens + output_tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS cost,
                     count(*)::int AS agents, coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
                     coalesce(sum(cached_tokens), 0) AS cached_tokens, coalesce(sum(cost_usd), 0) AS cost_usd,
                     coalesce(sum(unpriced_rows), 0) AS unpriced_rows, coalesce(sum(llm_calls), 0) AS llm_calls,
                     coalesce(sum(tool_calls), 0) AS tool_calls, coalesce(sum(spans), 0) AS spans,
                     coalesce(sum(errors), 0) AS errors, coalesce(sum(unreported_rows), 0) AS unreported_rows,
                     coalesce(sum(usage_rows), 0) AS usage_rows FROM per)
      SELECT tot.*, NULL AS agent, NULL::float8 AS page_rank, true AS is_total FROM tot
      UNION ALL
      SELECT * FROM (
        SELECT 0::float8, 0::float8, 0, per.input_tokens, per.output_tokens, per.cached_tokens, per.cost_usd, per.unpriced_rows,
               per.llm_calls, per.tool_calls, per.spans, per.errors, per.unreported_rows, per.usage_rows, per.agent, per.traces::float8, false
        FROM per ${afterWhere}
        ORDER BY (per.input_tokens + per.output_tokens) DESC, per.agent ASC LIMIT ${limit + 1}) p`),
  );
  const totalRow = rows.find((r) => r.is_total === true) ?? {};
  const agentRows = rows.filter((r) => r.is_total !== true);
  const allTokens = num(totalRow.tokens);
  const allCost = num(totalRow.cost);
  const page = agentRows.slice(0, limit).map((r): AgentMetrics => {
    const t = totalsOf({ ...r, traces: r.page_rank });
    return {
      agent: String(r.agent),
      ...t,
      tokenShare: t.totalTokens === null ? null : ratioOrNull(t.totalTokens, allTokens),
      costShare: t.costUsd === null ? null : ratioOrNull(t.costUsd, allCost),
    };
  });
  const lastRow = agentRows[Math.min(limit, agentRows.length) - 1];
  // The order's key is the stored sum (0 for an agent without reported tokens), whatever is served.
  const nextCursor = agentRows.length > limit && lastRow ? encodeCursor([num(lastRow.input_tokens) + num(lastRow.output_tokens), String(lastRow.agent)]) : null;
  // Distinct traces with usage: per-trace counts add up across cells (a trace has one row per agent).
  const totalTraces = rowsOf(
    await db.execute(
      filter.agent === undefined
        ? sql`SELECT sum(t.agent_traces)::int AS traces FROM ${rollupRows(traceRollup, projectId, filter)} t`
        : sql`SELECT sum(a.usage_rows)::int AS traces FROM ${cells} a WHERE ${onlyAgent}`,
    ),
  )[0];

  let series: AgentSeriesPoint[] | null = null;
  if (opts.bucketNs !== undefined && page.length > 0) {
    const bucket = opts.bucketNs.toString();
    const from = filter.fromNs.toString();
    const pageAgents = sql`${sql.param(page.map((p) => p.agent))}::text[]`;
    // Hourly cells fit the buckets only when every bucket is made of whole hours.
    const hourAligned = filter.fromNs % hourNs === 0n && opts.bucketNs % hourNs === 0n;
    const seriesRows = rowsOf(
      await db.execute(
        hourAligned
          ? sql`SELECT a.agent, ((a.hour_ns - ${from}::bigint) / ${bucket}::bigint) AS b, ${cellSums}
              FROM ${cells} a WHERE ${onlyAgent} AND a.agent = ANY(${pageAgents})
              GROUP BY a.agent, b HAVING sum(a.usage_rows) > 0 ORDER BY b, a.agent`
          : sql`SELECT a.agent, ((a.start_ns - ${from}::bigint) / ${bucket}::bigint) AS b, ${sums}
              FROM trace_agent_usage a WHERE ${agentRowsWhere("a", projectId, filter)} AND a.agent = ANY(${pageAgents})
                AND NOT EXISTS (SELECT 1 FROM trace_scores b WHERE b.project_id = a.project_id AND b.trace_id = a.trace_id AND b.is_baseline)
              GROUP BY a.agent, b ORDER BY b, a.agent`,
      ),
    );
    series = seriesRows.map((r) => ({
      agent: String(r.agent),
      bucketStartNs: filter.fromNs + BigInt(String(r.b)) * opts.bucketNs!,
      ...totalsOf(r),
    }));
  }
  return {
    totals: { ...totalsOf({ ...totalRow, traces: totalTraces?.traces }), agents: num(totalRow.agents) },
    agents: page,
    nextCursor,
    series,
  };
}
