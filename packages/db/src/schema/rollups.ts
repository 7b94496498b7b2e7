/**
 * Hourly score rollups (rollups/) and their append-only delta tables.
 */
import { bigint, boolean, index, numeric, pgTable, primaryKey, text, unique, type PgColumnBuilderBase } from "drizzle-orm/pg-core";

/**
 * The append-only delta table of an hourly rollup (rollups/rollups.ts): the rollup's columns, no unique
 * key, an identity id. The fold of pending traces, a re-score of a folded trace (its old cells,
 * negated) and a judge verdict on a folded trace append cells here instead of upserting the cells
 * every trace of the hour shares, so concurrent writers never wait on one another's row locks;
 * compactScoreRollups folds the rows into the rollup, and readers add what is not folded yet.
 */
function rollupDeltaTable<C extends { projectId: PgColumnBuilderBase; hourNs: PgColumnBuilderBase } & Record<string, PgColumnBuilderBase>>(
  name: string,
  columns: () => C,
) {
  return pgTable(name, { id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(), ...columns() }, (t) => [
    index(`${name}_cell_idx`).on(t.projectId, t.hourNs),
  ]);
}

// ---------------------------------------------------------------------------
// Hourly score rollups (rollups/rollups.ts): one row per cell of base rows sharing the
// hour of the trace start, the service and the table's group keys. Every trace
// lives in exactly one hour and service, so per-trace counts add up across
// cells. Scored traces are folded in by the compaction (rollups/pending.ts)
// and re-scores take their old cells out by deltas; sums are numeric so
// subtracting a trace's old contribution is exact. Keys are nullable where the
// base column is, hence unique constraints with NULLS NOT DISTINCT, not primary keys.
// ---------------------------------------------------------------------------

const rollupSum = () => numeric().notNull();
const rollupCount = () => bigint({ mode: "number" }).notNull();

/**
 * Multiplier inputs of the runs in a cell: baseline-independent sums only, so
 * the multiplier is computed when read against the task's current baseline
 * (a baseline run scored after the runs it measures counts at once).
 * Defaults let migration 0006 add them to existing rows before its backfill.
 */
const rollupSumFrom0 = () => numeric().notNull().default("0");
const rollupCountFrom0 = () => bigint({ mode: "number" }).notNull().default(0);

/** Per (hour, service, agent): trace_agent_usage sums; scored/failed traces the agent took part in. */
const scoreAgentHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  agent: text().notNull(),
  usageRows: rollupCount(),
  inputTokens: rollupSum(),
  outputTokens: rollupSum(),
  cachedTokens: rollupSum(),
  costUsd: rollupSum(),
  costRows: rollupCount(),
  llmCalls: rollupSum(),
  toolCalls: rollupSum(),
  spans: rollupSum(),
  errors: rollupSum(),
  scoredTraces: rollupCount(),
  failedTraces: rollupCount(),
  /** Rows whose tracer reported no token counts (trace_agent_usage.tokens_reported false). */
  tokensUnreportedRows: rollupCountFrom0(),
});
export const scoreAgentHourly = pgTable("score_agent_hourly", scoreAgentHourlyColumns(), (t) => [
  unique("score_agent_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.agent).nullsNotDistinct(),
]);
export const scoreAgentHourlyDelta = rollupDeltaTable("score_agent_hourly_delta", scoreAgentHourlyColumns);

/** Per (hour, service): trace counts, outcomes and milestone aggregates of trace_scores. */
const scoreTraceHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  traces: rollupCount(),
  failed: rollupCount(),
  agentTraces: rollupCount(),
  outcomeRuns: rollupCount(),
  outcomeOk: rollupCount(),
  outcomeUnknown: rollupCount(),
  runs: rollupCount(),
  baselineRuns: rollupCount(),
  /** Runs without a task id (their baseline can only be their service's configured figure). */
  notaskRuns: rollupCountFrom0(),
  notaskTokenSum: rollupSumFrom0(),
  notaskCostSum: rollupSumFrom0(),
  notaskCostN: rollupCountFrom0(),
  milestoneTraces: rollupCount(),
  creditSum: rollupSum(),
  creditN: rollupCount(),
  fullSum: rollupCount(),
  fullN: rollupCount(),
  furthestSum: rollupSum(),
  furthestN: rollupCount(),
});
export const scoreTraceHourly = pgTable("score_trace_hourly", scoreTraceHourlyColumns(), (t) => [
  unique("score_trace_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName).nullsNotDistinct(),
]);
export const scoreTraceHourlyDelta = rollupDeltaTable("score_trace_hourly_delta", scoreTraceHourlyColumns);

/** Per (hour, service, task): multiplier and success inputs. task_key = task id, or 'trace:' || trace id without one. */
const scoreTaskHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  taskKey: text().notNull(),
  hasTask: boolean().notNull(),
  traceRows: rollupCount(),
  runs: rollupCount(),
  baselineRuns: rollupCount(),
  /** Sums over the non-baseline runs: total tokens; cost and how many runs have one. */
  tokenSum: rollupSumFrom0(),
  costSum: rollupSumFrom0(),
  costN: rollupCountFrom0(),
  outcomeN: rollupCount(),
  outcomeOk: rollupCount(),
});
export const scoreTaskHourly = pgTable("score_task_hourly", scoreTaskHourlyColumns(), (t) => [
  unique("score_task_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.taskKey, t.hasTask).nullsNotDistinct(),
  // A page of tasks reads its own cells only.
  index("score_task_hourly_task_idx").on(t.projectId, t.taskKey, t.hourNs),
]);
export const scoreTaskHourlyDelta = rollupDeltaTable("score_task_hourly_delta", scoreTaskHourlyColumns);

/** Per (hour, service, milestone id): traces that evaluated the milestone and how many passed. */
const scoreMilestoneHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  milestoneId: text(),
  traces: rollupCount(),
  passed: rollupCount(),
});
export const scoreMilestoneHourly = pgTable("score_milestone_hourly", scoreMilestoneHourlyColumns(), (t) => [
  unique("score_milestone_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.milestoneId).nullsNotDistinct(),
]);
export const scoreMilestoneHourlyDelta = rollupDeltaTable("score_milestone_hourly_delta", scoreMilestoneHourlyColumns);

/**
 * Per (hour, service, agent scope, kind, k1, k2) finding facts. agent null = all
 * agents. kind 'mode' (k1 = mode), 'category' (k1 = category), 'source'
 * (k1 = mode, k2 = source); traces = traces with at least one such finding.
 */
const scoreFindingHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  agent: text(),
  kind: text().notNull(),
  k1: text().notNull(),
  k2: text().notNull(),
  findings: rollupCount(),
  traces: rollupCount(),
  failedTraces: rollupCount(),
});
export const scoreFindingHourly = pgTable("score_finding_hourly", scoreFindingHourlyColumns(), (t) => [
  unique("score_finding_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.agent, t.kind, t.k1, t.k2).nullsNotDistinct(),
]);
export const scoreFindingHourlyDelta = rollupDeltaTable("score_finding_hourly_delta", scoreFindingHourlyColumns);

/**
 * Traces whose current score rows are in no rollup yet (rollups/rollups.ts "pending traces"): a score write
 * lists its traces here instead of computing their cells, the scheduled compaction folds them in
 * batches, and readers compute the cells of the ones still listed from their base rows.
 */
export const scoreRollupPending = pgTable("score_rollup_pending", { projectId: text().notNull(), traceId: text().notNull() }, (t) => [
  primaryKey({ columns: [t.projectId, t.traceId] }),
]);

/**
 * Hourly rollup of judge_findings (rollups/rollups.ts judgeFindingRollup): per (hour, service, agent scope,
 * kind, k1, k2) findings, traces, and `extra`: traces no code finding of the key has, so a rate over
 * "code or judge" is the code count plus extra. agent null = all agents.
 */
const scoreJudgeFindingHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  agent: text(),
  kind: text().notNull(),
  k1: text().notNull(),
  k2: text().notNull(),
  findings: bigint({ mode: "number" }).notNull(),
  traces: bigint({ mode: "number" }).notNull(),
  extra: bigint({ mode: "number" }).notNull(),
  failedTraces: bigint({ mode: "number" }).notNull(),
  extraFailed: bigint({ mode: "number" }).notNull(),
});
export const scoreJudgeFindingHourly = pgTable("score_judge_finding_hourly", scoreJudgeFindingHourlyColumns(), (t) => [
  unique("score_judge_finding_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.agent, t.kind, t.k1, t.k2).nullsNotDistinct(),
]);
export const scoreJudgeFindingHourlyDelta = rollupDeltaTable("score_judge_finding_hourly_delta", scoreJudgeFindingHourlyColumns);
