/**
 * persistTraceScores / persistTraceScoreSets: replace a trace's whole score set
 * (or several traces' sets) in one transaction. Transaction-scoped advisory
 * locks on the traces (lockTraces), taken first in one global order, serialize two writers of the
 * same trace, so the second one's deletes see the first one's rows (no
 * primary-key clash) and readers see the old set or the new set, never a mix;
 * under them a record older than the stored one (lower version) is ignored.
 * The set is stamped with the hash of the inputs it was computed from (the score
 * stage's scoreInputHash; null = unknown, so the next score job recomputes it).
 * The rollups are not computed here: the traces are listed as pending and the
 * scheduled compaction folds them in batches (pending-rollups.ts); a trace already
 * folded has its old cells taken out first (appended negated to the delta tables).
 */
import type { TraceScoreRecord } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { appendTraceCellsSql, lockTracesSql, markPendingSql, withAll } from "./pending-rollups.ts";
import { unnestOf, unnestSelect } from "./sql-util.ts";

interface Col {
  name: string;
  type: string;
  values: unknown[];
}

const childTables = ["trace_findings", "trace_agent_usage", "trace_attributions", "trace_handoffs", "trace_trajectories"];

export interface PersistOptions {
  /** scoreInputHash of the inputs; null = unknown, so the next score job recomputes it. */
  inputHash?: string | null;
  /** The trace's agent list (traces.agents), written with the set. */
  agents?: readonly string[];
  /** Clears traces.score_requested_at if it still equals this (compare-and-set), with the set. */
  clearScoreRequest?: Date | null;
}

/** One trace's score set and what goes with it. */
export interface ScoreSetWrite {
  record: TraceScoreRecord;
  opts?: PersistOptions;
}

/** Returns whether the set was written (false: a newer version is stored). */
export async function persistTraceScores(database: Database, projectId: string, record: TraceScoreRecord, opts: PersistOptions = {}): Promise<boolean> {
  const [written] = await persistTraceScoreSets(database, projectId, [{ record, opts }]);
  return written === true;
}

/**
 * Several traces' sets in one transaction (the worker groups the sets its concurrent jobs finish),
 * each exactly as persistTraceScores would write it alone; one set per trace. Statements: the
 * advisory locks (key order); the stored versions; the old rollup contributions (one read, only if
 * some trace was scored before); the summary upserts with the children's deletes and the traces
 * rows' agents and score requests; every child insert; every rollup delta. Returns per set whether
 * it was written.
 */
export async function persistTraceScoreSets(database: Database, projectId: string, sets: readonly ScoreSetWrite[]): Promise<boolean[]> {
  if (sets.length === 0) return [];
  const ids = sets.map((s) => s.record.traceId);
  if (new Set(ids).size !== ids.length) throw new Error("persistTraceScoreSets: one set per trace");
  return database.db.transaction(async (tx) => {
    // Derived data: the commit does not wait for the WAL flush (the trace locks would be held through it). A crash
    // can lose the last fraction of a second of score sets, always whole with their score-request clear, so those
    // traces keep their request and the sweeper scores them again (docs/architecture.md §6).
    await tx.execute(sql`SELECT set_config('synchronous_commit', 'off', true), ${lockTracesSql(ids.map((id) => [projectId, id]))}`);
    // Under the locks: a stored set of a higher version wins (the set is ignored); a stored set already folded into the rollups is taken out of them.
    const storedRows = rowsOf(
      await tx.execute(sql`SELECT s.trace_id, s.version,
          EXISTS (SELECT 1 FROM score_rollup_pending p WHERE p.project_id = s.project_id AND p.trace_id = s.trace_id) AS pending
        FROM trace_scores s WHERE s.project_id = ${projectId} AND s.trace_id = ANY(${sql.param(ids)}::text[])`),
    );
    const stored = new Map(storedRows.map((r) => [String(r.trace_id), { version: Number(r.version), pending: r.pending === true }]));
    const kept = sets.filter((s) => (stored.get(s.record.traceId)?.version ?? -Infinity) <= s.record.version);
    if (kept.length === 0) return sets.map(() => false);
    const keptIds = kept.map((s) => s.record.traceId);
    const folded = keptIds.filter((id) => stored.get(id)?.pending === false);
    // Before the rows change: the old cells, negated. (Rare: only a re-score of a trace already folded.)
    if (folded.length > 0) await tx.execute(appendTraceCellsSql(projectId, folded, -1));
    // Child rows exist only for traces scored before (this function writes them, with their set): only theirs are deleted.
    await tx.execute(
      replaceSummariesSql(
        projectId,
        kept,
        keptIds.filter((id) => stored.has(id)),
      ),
    );
    const records = kept.map((s) => s.record);
    const inserts = [
      insertRowsSql("trace_findings", projectId, records, findingColumns),
      insertRowsSql("trace_agent_usage", projectId, records, agentColumns),
      insertRowsSql("trace_attributions", projectId, records, attributionColumns),
      insertRowsSql("trace_handoffs", projectId, records, handoffColumns),
      insertRowsSql("trace_trajectories", projectId, records, trajectoryColumns),
    ].filter((q): q is SQL => q !== null);
    // Different tables, none read by another: one statement.
    if (inserts.length > 0) await tx.execute(withAll("i", inserts));
    const written = new Set(keptIds);
    return sets.map((s) => written.has(s.record.traceId));
  });
}

/** The summaries' upsert, the deletes of re-scored traces' children, the traces rows' agents and score requests and the pending listing, in one statement. */
function replaceSummariesSql(projectId: string, sets: readonly ScoreSetWrite[], rescored: readonly string[]): SQL {
  const ids = sql`${sql.param([...rescored])}::text[]`;
  const deletes =
    rescored.length === 0
      ? []
      : childTables.map(
          (table, i) => sql`${sql.identifier(`d${i}`)} AS (DELETE FROM ${sql.identifier(table)} WHERE project_id = ${projectId} AND trace_id = ANY(${ids}))`,
        );
  const traceRows = sets
    .filter((s) => s.opts?.agents !== undefined || s.opts?.clearScoreRequest)
    .map((s) => ({ trace_id: s.record.traceId, agents: s.opts?.agents ?? null, clear: s.opts?.clearScoreRequest?.toISOString() ?? null }));
  const traceUpdate =
    traceRows.length === 0
      ? []
      : [
          sql`t AS (UPDATE traces tr SET
            agents = CASE WHEN u.agents IS NULL THEN tr.agents ELSE ARRAY(SELECT jsonb_array_elements_text(u.agents)) END,
            score_requested_at = CASE WHEN tr.score_requested_at = u.clear THEN NULL ELSE tr.score_requested_at END
          FROM jsonb_to_recordset(${JSON.stringify(traceRows)}::jsonb) AS u(trace_id text, agents jsonb, clear timestamptz)
          WHERE tr.project_id = ${projectId} AND tr.trace_id = u.trace_id)`,
        ];
  // Listed as pending: the compaction folds their cells into the rollups (pending-rollups.ts).
  const pending = sql`pend AS (${markPendingSql(
    projectId,
    sets.map((s) => s.record.traceId),
  )})`;
  return sql`WITH up AS (${upsertSummarySql(projectId, sets)}), ${sql.join([...deletes, ...traceUpdate, pending], sql`, `)} SELECT 1`;
}

/** What the score stage compares before scoring: the stored set's input hash, and the task id it resolved (which picks config and baseline). */
export async function getStoredScoreInputs(
  database: Database,
  projectId: string,
  traceId: string,
): Promise<{ version: number; inputHash: string | null; taskId: string | null } | null> {
  const rows = rowsOf(
    await database.db.execute(sql`
      SELECT version, input_hash, task_id FROM trace_scores WHERE project_id = ${projectId} AND trace_id = ${traceId}`),
  );
  const row = rows[0] as { version: number; input_hash: string | null; task_id: string | null } | undefined;
  return row ? { version: Number(row.version), inputHash: row.input_hash, taskId: row.task_id } : null;
}

/** INSERT ... SELECT FROM unnest of the records' columns (with their trace ids); null when there is no row. */
function insertRowsSql(table: string, projectId: string, records: readonly TraceScoreRecord[], columnsOf: (r: TraceScoreRecord) => Col[]): SQL | null {
  const perRecord = records.map(columnsOf);
  const rowCounts = perRecord.map((cols) => cols[0]?.values.length ?? 0);
  if (rowCounts.every((n) => n === 0)) return null;
  const columns: Col[] = [
    { name: "trace_id", type: "text", values: records.flatMap((r, i) => Array<string>(rowCounts[i]!).fill(r.traceId)) },
    ...perRecord[0]!.map((c, j) => ({ name: c.name, type: c.type, values: perRecord.flatMap((cols) => cols[j]!.values) })),
  ];
  const names = columns.map((c) => c.name).join(", ");
  return sql`
    INSERT INTO ${sql.identifier(table)} (project_id, ${sql.raw(names)})
    SELECT ${projectId}, ${unnestSelect(columns)} FROM ${unnestOf(columns)}`;
}

function col<T>(name: string, type: string, rows: readonly T[], pick: (row: T, i: number) => unknown): Col {
  return { name, type, values: rows.map(pick) };
}

function findingColumns(r: TraceScoreRecord): Col[] {
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

function agentColumns(r: TraceScoreRecord): Col[] {
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
    col("cost_usd", "double precision", a, (x) => x.costUsd),
    col("token_share", "double precision", a, (x) => x.tokenShare),
    col("wall_ms", "double precision", a, (x) => x.wallMs),
    col("milestone_credit", "double precision", a, (x) => x.milestoneCredit),
    col("start_ns", "bigint", a, () => start),
    col("service_name", "text", a, () => r.serviceName),
  ];
}

function attributionColumns(r: TraceScoreRecord): Col[] {
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

function handoffColumns(r: TraceScoreRecord): Col[] {
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

function trajectoryColumns(r: TraceScoreRecord): Col[] {
  const t = r.trajectories;
  return [
    col("agent", "text", t, (x) => x.agent),
    col("steps", "jsonb", t, (x) => JSON.stringify(x.steps.map((s) => ({ ...s, startNs: s.startNs.toString() })))),
  ];
}

function summaryValues(r: TraceScoreRecord, inputHash: string | null): [string, unknown, string][] {
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

function upsertSummarySql(projectId: string, sets: readonly ScoreSetWrite[]): SQL {
  const names = summaryValues(sets[0]!.record, null).map(([n]) => n);
  const rows = sets.map(({ record: r, opts }) => {
    const exprs = summaryValues(r, opts?.inputHash ?? null).map(([name, v, type]) =>
      name === "unpriced_models" ? sql`ARRAY(SELECT jsonb_array_elements_text(${v}::jsonb))` : sql`${v}::${sql.raw(type)}`,
    );
    return sql`(${projectId}, ${r.traceId}, ${sql.join(exprs, sql`, `)}, now())`;
  });
  return sql`
    INSERT INTO trace_scores AS s (project_id, trace_id, ${sql.raw(names.join(", "))}, scored_at)
    VALUES ${sql.join(rows, sql`, `)}
    ON CONFLICT (project_id, trace_id) DO UPDATE SET
      ${sql.raw(names.map((n) => `${n} = excluded.${n}`).join(",\n      "))},
      scored_at = now()
    WHERE s.version <= excluded.version
    RETURNING s.trace_id`;
}
