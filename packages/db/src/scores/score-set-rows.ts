/**
 * A score set's rows, column by column: what persist.ts writes for a TraceScoreRecord into
 * trace_scores and its child tables. Pure mapping; the statements are persist.ts's.
 */
import type { TraceScoreRecord } from "@crux/core";

/** One column of rows: its name, SQL type and values (jsonb travels as JSON text). */
export interface Col {
  name: string;
  type: string;
  values: unknown[];
}

function col<T>(name: string, type: string, rows: readonly T[], pick: (row: T, i: number) => unknown): Col {
  return { name, type, values: rows.map(pick) };
}

export function findingColumns(r: TraceScoreRecord): Col[] {
  const f = r.findings;
  const start = r.startNs.toString();
  return [
    col("ord", "integer", f, (_, i) => i),
    col("mode", "text", f, (x) => x.mode),
    col("category", "text", f, (x) => x.category),
    col("agent", "text", f, (x) => x.agent),
    col("span_id", "text", f, (x) => x.spanId),
    col("step_index", "integer", f, (x) => x.stepIndex),
    col("source", "text", f, (x) => x.source),
    col("detector", "text", f, (x) => x.detector),
    col("confidence", "double precision", f, (x) => x.confidence),
    col("evidence", "text", f, (x) => x.evidence),
    col("start_ns", "bigint", f, () => start),
    col("service_name", "text", f, () => r.serviceName),
    col("success", "boolean", f, () => r.run.success),
    col(
      "first_of_mode",
      "boolean",
      f,
      firstOf((x) => x.mode),
    ),
    col(
      "first_of_category",
      "boolean",
      f,
      firstOf((x) => x.category),
    ),
    col(
      "first_of_agent_mode",
      "boolean",
      f,
      firstOf((x) => (x.agent === null ? null : `${x.agent}\u0000${x.mode}`)),
    ),
  ];
}

/** A picker that is true on the first row with each (non-null) key. */
function firstOf<T>(key: (row: T) => string | null): (row: T) => boolean {
  const seen = new Set<string>();
  return (row) => {
    const k = key(row);
    if (k === null || seen.has(k)) return false;
    seen.add(k);
    return true;
  };
}

export function agentColumns(r: TraceScoreRecord): Col[] {
  const a = r.agents;
  const start = r.startNs.toString();
  return [
    col("agent", "text", a, (x) => x.agent),
    col("agent_id", "text", a, (x) => x.agentId),
    col("parent_agent", "text", a, (x) => x.parentAgent),
    col("spans", "integer", a, (x) => x.spans),
    col("llm_calls", "integer", a, (x) => x.llmCalls),
    col("tool_calls", "integer", a, (x) => x.toolCalls),
    col("errors", "integer", a, (x) => x.errors),
    col("input_tokens", "bigint", a, (x) => x.inputTokens),
    col("output_tokens", "bigint", a, (x) => x.outputTokens),
    col("cached_tokens", "bigint", a, (x) => x.cachedTokens),
    col("tokens_reported", "boolean", a, (x) => x.tokensReported),
    col("cost_usd", "double precision", a, (x) => x.costUsd),
    col("token_share", "double precision", a, (x) => x.tokenShare),
    col("wall_ms", "double precision", a, (x) => x.wallMs),
    col("milestone_credit", "double precision", a, (x) => x.milestoneCredit),
    col("start_ns", "bigint", a, () => start),
    col("service_name", "text", a, () => r.serviceName),
  ];
}

export function attributionColumns(r: TraceScoreRecord): Col[] {
  const a = r.attributions;
  return [
    col("ord", "integer", a, (_, i) => i),
    col("method", "text", a, (x) => x.method),
    col("rank", "integer", a, (x) => x.rank),
    col("agent", "text", a, (x) => x.agent),
    col("step_index", "integer", a, (x) => x.stepIndex),
    col("span_id", "text", a, (x) => x.spanId),
    col("reason", "text", a, (x) => x.reason),
    col("confidence", "double precision", a, (x) => x.confidence),
  ];
}

export function handoffColumns(r: TraceScoreRecord): Col[] {
  const h = r.handoffs;
  return [
    col("idx", "integer", h, (x) => x.index),
    col("sender", "text", h, (x) => x.sender),
    col("receiver", "text", h, (x) => x.receiver),
    col("span_id", "text", h, (x) => x.spanId),
    col("via", "text", h, (x) => x.via),
    col("message", "text", h, (x) => x.message),
    col("start_ns", "bigint", h, (x) => x.startNs.toString()),
  ];
}

export function trajectoryColumns(r: TraceScoreRecord): Col[] {
  const t = r.trajectories;
  return [
    col("agent", "text", t, (x) => x.agent),
    col("steps", "jsonb", t, (x) => JSON.stringify(x.steps.map((s) => ({ ...s, startNs: s.startNs.toString() })))),
  ];
}

export function summaryValues(r: TraceScoreRecord, inputHash: string | null): [string, unknown, string][] {
  const m = r.milestones;
  return [
    ["version", r.version, "integer"],
    ["service_name", r.serviceName, "text"],
    ["start_ns", r.startNs.toString(), "bigint"],
    ["end_ns", r.endNs.toString(), "bigint"],
    ["success", r.run.success, "boolean"],
    ["score", r.run.score, "double precision"],
    ["task_id", r.run.taskId, "text"],
    ["variant", r.run.variant, "text"],
    ["is_baseline", r.run.isBaseline, "boolean"],
    ["experiment_id", r.run.experimentId, "text"],
    ["seed", r.run.seed, "text"],
    ["trial", r.run.trial, "integer"],
    ["active_agents", r.run.activeAgents === null ? null : JSON.stringify(r.run.activeAgents), "jsonb"],
    ["replay_id", r.run.replayId, "text"],
    ["input_tokens", r.totals.inputTokens, "bigint"],
    ["output_tokens", r.totals.outputTokens, "bigint"],
    ["cached_tokens", r.totals.cachedTokens, "bigint"],
    ["total_tokens", r.totals.totalTokens, "bigint"],
    ["cost_usd", r.totals.costUsd, "double precision"],
    ["unpriced_models", JSON.stringify(r.totals.unpricedModels), "jsonb"],
    ["token_multiplier", r.multiplier.tokens.value, "double precision"],
    ["token_observed", r.multiplier.tokens.observed, "double precision"],
    ["token_baseline", r.multiplier.tokens.baseline, "double precision"],
    ["token_baseline_source", r.multiplier.tokens.source, "text"],
    ["cost_multiplier", r.multiplier.cost.value, "double precision"],
    ["cost_observed", r.multiplier.cost.observed, "double precision"],
    ["cost_baseline", r.multiplier.cost.baseline, "double precision"],
    ["cost_baseline_source", r.multiplier.cost.source, "text"],
    ["redundancy", r.coordination.redundancy, "double precision"],
    ["ignored_handoffs", r.coordination.ignoredHandoffs, "double precision"],
    ["role_violations", r.coordination.roleViolations, "double precision"],
    ["coordination_score", r.coordination.score, "double precision"],
    ["communication_efficiency", r.communicationEfficiency, "double precision"],
    ["goal_drift", r.goalDrift, "double precision"],
    ["milestone_set_id", m?.setId ?? null, "text"],
    ["milestone_partial_credit", m?.partialCredit ?? null, "double precision"],
    ["milestone_full_success", m?.fullSuccess ?? null, "boolean"],
    ["milestone_furthest_index", m?.furthestIndex ?? null, "integer"],
    ["milestone_detail", m === null ? null : JSON.stringify(m.detail), "jsonb"],
    ["signals", JSON.stringify(r.signals), "jsonb"],
    ["error_paths", JSON.stringify(r.errorPaths), "jsonb"],
    ["flags", JSON.stringify(r.flags), "jsonb"],
    ["finding_count", r.findings.length, "integer"],
    ["input_hash", inputHash, "text"],
  ];
}
