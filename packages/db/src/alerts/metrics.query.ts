/**
 * The readings alert rules are evaluated on, from the stored scores through
 * the metrics queries the API serves (so a reading is what the linked query
 * answers for the same window), plus a few example traces behind a reading.
 */
import type { AlertMetric, AlertScope, MetricReading, ValidationBar } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { agentMetrics } from "../metrics/agents.query.ts";
import { failureModeMetrics } from "../metrics/failure-modes.query.ts";
import { agentRowsWhere, traceScopeWhere, type MetricsFilter } from "../metrics/filter.ts";
import { multiplierMetrics, successInputs } from "../metrics/outcomes.query.ts";
import { productionTrace } from "../rollups/rollups.ts";

const msToNs = (ms: number) => BigInt(Math.trunc(ms)) * 1_000_000n;

function alertFilter(scope: AlertScope, window: { fromMs: number; toMs: number }): MetricsFilter {
  return {
    fromNs: msToNs(window.fromMs),
    toNs: msToNs(window.toMs),
    service: scope.service ?? undefined,
    agent: scope.agent ?? undefined,
  };
}

const ratio = (numerator: number, denominator: number, samples: number): MetricReading => ({
  value: denominator === 0 ? null : numerator / denominator,
  numerator,
  denominator,
  samples,
});

export async function readAlertMetric(
  database: Database,
  projectId: string,
  metric: AlertMetric,
  scope: AlertScope,
  window: { fromMs: number; toMs: number },
  /** For validatedOnly: the bar a judge counted in the rate must clear (default kappa .6 on 20 labels). */
  validationBar?: ValidationBar,
): Promise<MetricReading> {
  const filter = alertFilter(scope, window);
  switch (metric.kind) {
    case "failure_mode_rate":
    case "failure_category_rate": {
      const byMode = metric.kind === "failure_mode_rate";
      const key = byMode ? metric.mode : metric.category;
      // Code and judge findings, as GET /metrics/failure-modes counts them by default (source all).
      const result = await failureModeMetrics(database, projectId, filter, { groupBy: byMode ? "mode" : "category", validationBar });
      const row = result.rates.find((r) => r.mode === key);
      const reading = ratio(row?.numerator ?? 0, result.scopeTraces, result.scopeTraces);
      // No value (the rule decides nothing): a mode nothing measures in scope (never 0), or, with validatedOnly, a
      // rate that counts a judge not validated for the mode against human labels. Code-only rates are validated.
      if (row?.measured === false || (metric.validatedOnly === true && row?.validated === false)) return { ...reading, value: null };
      return reading;
    }
    case "success_rate": {
      const s = await successInputs(database, projectId, filter);
      return ratio(s.successfulRuns, s.runs, s.runs);
    }
    case "tokens_per_trace":
    case "cost_per_trace":
    case "error_rate": {
      const { totals } = await agentMetrics(database, projectId, filter, { limit: 1 });
      if (metric.kind === "error_rate") return ratio(totals.errors, totals.spans, totals.traces);
      const sum = metric.kind === "tokens_per_trace" ? totals.totalTokens : totals.costUsd;
      // No tracer reported tokens in scope: unknown, so the rule decides nothing (never a reading of 0).
      if (sum === null) return { value: null, numerator: 0, denominator: totals.traces, samples: totals.traces };
      return ratio(sum, totals.traces, totals.traces);
    }
    case "cost_multiplier": {
      const { overall } = await multiplierMetrics(database, projectId, filter, { limit: 1 });
      const { observed, baseline, runsWithBaseline } = overall.cost;
      if (observed === null || baseline === null) return { value: null, numerator: 0, denominator: 0, samples: runsWithBaseline };
      return ratio(observed, baseline, runsWithBaseline);
    }
  }
}

/** Up to `limit` traces behind a reading, newest first: the traces with the finding, the failed runs, those in error, the costliest. */
export async function exampleTraceIds(
  database: Database,
  projectId: string,
  metric: AlertMetric,
  scope: AlertScope,
  window: { fromMs: number; toMs: number },
  limit = 5,
): Promise<string[]> {
  const filter = alertFilter(scope, window);
  let query: SQL;
  switch (metric.kind) {
    case "failure_mode_rate":
    case "failure_category_rate": {
      const match = metric.kind === "failure_mode_rate" ? sql`f.mode = ${metric.mode}` : sql`f.category = ${metric.category}`;
      query = sql`SELECT f.trace_id, max(f.start_ns) AS k FROM trace_findings f WHERE ${agentRowsWhere("f", projectId, filter)} AND ${match} AND ${productionTrace("f")}
        GROUP BY f.trace_id ORDER BY k DESC, f.trace_id LIMIT ${limit}`;
      break;
    }
    case "success_rate":
      query = sql`SELECT s.trace_id FROM trace_scores s WHERE ${traceScopeWhere("s", projectId, filter)} AND s.success = false AND NOT s.is_baseline AND NOT s.metrics_excluded
        ORDER BY s.start_ns DESC, s.trace_id LIMIT ${limit}`;
      break;
    case "error_rate":
      query = sql`SELECT a.trace_id, max(a.start_ns) AS k FROM trace_agent_usage a WHERE ${agentRowsWhere("a", projectId, filter)} AND a.errors > 0 AND ${productionTrace("a")}
        GROUP BY a.trace_id ORDER BY k DESC, a.trace_id LIMIT ${limit}`;
      break;
    case "tokens_per_trace":
    case "cost_per_trace":
    case "cost_multiplier": {
      const measure = metric.kind === "tokens_per_trace" ? sql`a.input_tokens + a.output_tokens` : sql`coalesce(a.cost_usd, 0)`;
      query = sql`SELECT a.trace_id, sum(${measure}) AS k FROM trace_agent_usage a WHERE ${agentRowsWhere("a", projectId, filter)}
        GROUP BY a.trace_id ORDER BY k DESC, a.trace_id LIMIT ${limit}`;
      break;
    }
  }
  return rowsOf(await database.db.execute(query)).map((r) => String(r.trace_id));
}
