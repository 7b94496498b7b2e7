/**
 * Hourly rollups of the score tables (schema/rollups.ts).
 * Each rollup is defined once, as `cells(where)`: the SELECT that aggregates
 * the base rows matching `where` into rollup cells. That same SELECT
 *  - rebuilds a rollup (rebuildScoreRollups),
 *  - folds newly scored traces in, in batches (pending.ts), and takes a
 *    re-scored trace's old cells out (appended negated to the delta table),
 *  - computes the cells of traces not folded yet, and of the partial hours at
 *    the window edges, at query time (metrics/rollup-source.ts),
 * so stored cells plus delta rows plus pending traces are by construction what
 * the base rows give, and summing cells equals aggregating the rows.
 */
import { sql, type SQL } from "drizzle-orm";
import { type Database } from "../client.ts";

export const hourNs = 3_600_000_000_000n;

/** Rows of a base table alias matching some conditions (the alias carries project_id, start_ns, service_name). */
export type BaseWhere = (alias: string) => SQL;

export interface Rollup {
  table: string;
  /** Group keys after project_id, hour_ns, service_name, with their SQL types. */
  keys: [string, string][];
  /** Additive measures with their SQL types. */
  measures: [string, string][];
  cells(where: BaseWhere): SQL;
}

const hourExpr = (col: string) => `(${col} - ((${col} % ${hourNs}) + ${hourNs}) % ${hourNs})`;
const hourOf = (col: string) => sql.raw(hourExpr(col));

/**
 * System metrics cover the system's own runs: a run tagged crux.baseline=true is
 * the single-agent reference, not the system, so it is counted in baseline_runs
 * and left out of everything else (outcomes, milestones, agents, findings; the
 * multipliers read it as their baseline). Migration 0008 recomputed the outcome
 * counts of existing cells; migration 0019 lists every scored trace as pending,
 * so the compaction folds all of them again with this definition.
 */
const systemRun = "NOT s.is_baseline";
/** A finding (alias f) of a system run: its trace is not a baseline run. */
const systemFinding = "NOT EXISTS (SELECT 1 FROM trace_scores b WHERE b.project_id = f.project_id AND b.trace_id = f.trace_id AND b.is_baseline)";

const counts = (...names: string[]): [string, string][] => names.map((n) => [n, "bigint"]);
const sums = (...names: string[]): [string, string][] => names.map((n) => [n, "numeric"]);

export const agentRollup: Rollup = {
  table: "score_agent_hourly",
  keys: [["agent", "text"]],
  measures: [
    ...counts("usage_rows"),
    ...sums("input_tokens", "output_tokens", "cached_tokens", "cost_usd"),
    ...counts("cost_rows"),
    ...sums("llm_calls", "tool_calls", "spans", "errors"),
    ...counts("scored_traces", "failed_traces"),
    // Rows whose tracer reported no token counts (stored as 0): their tokens are unknown, not 0.
    ...counts("tokens_unreported_rows"),
  ],
  cells: (where) => sql`
    SELECT a.project_id, ${hourOf("a.start_ns")} AS hour_ns, a.service_name, a.agent,
      count(*) AS usage_rows, coalesce(sum(a.input_tokens), 0)::numeric AS input_tokens,
      coalesce(sum(a.output_tokens), 0)::numeric AS output_tokens, coalesce(sum(a.cached_tokens), 0)::numeric AS cached_tokens,
      coalesce(sum(a.cost_usd::numeric), 0) AS cost_usd, count(a.cost_usd) AS cost_rows,
      coalesce(sum(a.llm_calls), 0)::numeric AS llm_calls, coalesce(sum(a.tool_calls), 0)::numeric AS tool_calls,
      coalesce(sum(a.spans), 0)::numeric AS spans, coalesce(sum(a.errors), 0)::numeric AS errors,
      count(s.trace_id) AS scored_traces, count(*) FILTER (WHERE s.success = false) AS failed_traces,
      count(*) FILTER (WHERE NOT a.tokens_reported) AS tokens_unreported_rows
    FROM trace_agent_usage a LEFT JOIN trace_scores s ON s.project_id = a.project_id AND s.trace_id = a.trace_id
    WHERE ${where("a")} AND s.is_baseline IS NOT TRUE GROUP BY 1, 2, 3, 4`,
};

export const traceRollup: Rollup = {
  table: "score_trace_hourly",
  keys: [],
  measures: [
    ...counts("traces", "failed", "agent_traces", "outcome_runs", "outcome_ok", "outcome_unknown"),
    ...counts("runs", "baseline_runs", "notask_runs"),
    ...sums("notask_token_sum", "notask_cost_sum"),
    ...counts("notask_cost_n"),
    ...counts("milestone_traces"),
    ...sums("credit_sum"),
    ...counts("credit_n", "full_sum", "full_n"),
    ...sums("furthest_sum"),
    ...counts("furthest_n"),
  ],
  cells: (where) => sql`
    SELECT s.project_id, ${hourOf("s.start_ns")} AS hour_ns, s.service_name,
      count(*) FILTER (WHERE ${sql.raw(systemRun)}) AS traces, count(*) FILTER (WHERE ${sql.raw(systemRun)} AND s.success = false) AS failed,
      count(*) FILTER (WHERE ${sql.raw(systemRun)} AND EXISTS (SELECT 1 FROM trace_agent_usage au WHERE au.project_id = s.project_id AND au.trace_id = s.trace_id)) AS agent_traces,
      count(*) FILTER (WHERE ${sql.raw(systemRun)} AND s.success IS NOT NULL) AS outcome_runs,
      count(*) FILTER (WHERE ${sql.raw(systemRun)} AND s.success) AS outcome_ok,
      count(*) FILTER (WHERE ${sql.raw(systemRun)} AND s.success IS NULL) AS outcome_unknown,
      count(*) FILTER (WHERE NOT s.is_baseline) AS runs, count(*) FILTER (WHERE s.is_baseline) AS baseline_runs,
      count(*) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL) AS notask_runs,
      coalesce(sum(s.total_tokens) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL), 0)::numeric AS notask_token_sum,
      coalesce(sum(s.cost_usd::numeric) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL), 0) AS notask_cost_sum,
      count(s.cost_usd) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL) AS notask_cost_n,
      count(s.milestone_set_id) FILTER (WHERE ${sql.raw(systemRun)}) AS milestone_traces,
      coalesce(sum(s.milestone_partial_credit::numeric) FILTER (WHERE ${sql.raw(systemRun)} AND s.milestone_set_id IS NOT NULL), 0) AS credit_sum,
      count(s.milestone_partial_credit) FILTER (WHERE ${sql.raw(systemRun)} AND s.milestone_set_id IS NOT NULL) AS credit_n,
      count(*) FILTER (WHERE ${sql.raw(systemRun)} AND s.milestone_set_id IS NOT NULL AND s.milestone_full_success) AS full_sum,
      count(s.milestone_full_success) FILTER (WHERE ${sql.raw(systemRun)} AND s.milestone_set_id IS NOT NULL) AS full_n,
      coalesce(sum(s.milestone_furthest_index) FILTER (WHERE ${sql.raw(systemRun)} AND s.milestone_set_id IS NOT NULL), 0)::numeric AS furthest_sum,
      count(s.milestone_furthest_index) FILTER (WHERE ${sql.raw(systemRun)} AND s.milestone_set_id IS NOT NULL) AS furthest_n
    FROM trace_scores s WHERE ${where("s")} GROUP BY 1, 2, 3`,
};

export const taskRollup: Rollup = {
  table: "score_task_hourly",
  keys: [
    ["task_key", "text"],
    ["has_task", "boolean"],
  ],
  measures: [...counts("trace_rows", "runs", "baseline_runs"), ...sums("token_sum", "cost_sum"), ...counts("cost_n", "outcome_n", "outcome_ok")],
  cells: (where) => sql`
    SELECT s.project_id, ${hourOf("s.start_ns")} AS hour_ns, s.service_name,
      coalesce(s.task_id, 'trace:' || s.trace_id) AS task_key, s.task_id IS NOT NULL AS has_task,
      count(*) AS trace_rows, count(*) FILTER (WHERE NOT s.is_baseline) AS runs, count(*) FILTER (WHERE s.is_baseline) AS baseline_runs,
      coalesce(sum(s.total_tokens) FILTER (WHERE NOT s.is_baseline), 0)::numeric AS token_sum,
      coalesce(sum(s.cost_usd::numeric) FILTER (WHERE NOT s.is_baseline), 0) AS cost_sum,
      count(s.cost_usd) FILTER (WHERE NOT s.is_baseline) AS cost_n,
      count(*) FILTER (WHERE ${sql.raw(systemRun)} AND s.success IS NOT NULL) AS outcome_n,
      count(*) FILTER (WHERE ${sql.raw(systemRun)} AND s.success) AS outcome_ok
    FROM trace_scores s WHERE ${where("s")} GROUP BY 1, 2, 3, 4, 5`,
};

export const milestoneRollup: Rollup = {
  table: "score_milestone_hourly",
  keys: [["milestone_id", "text"]],
  measures: counts("traces", "passed"),
  cells: (where) => sql`
    SELECT s.project_id, ${hourOf("s.start_ns")} AS hour_ns, s.service_name, m->>'id' AS milestone_id,
      count(*) AS traces, count(*) FILTER (WHERE (m->>'passed')::boolean) AS passed
    FROM trace_scores s, jsonb_array_elements(s.milestone_detail) AS m
    WHERE ${where("s")} AND ${sql.raw(systemRun)} AND s.milestone_detail IS NOT NULL AND coalesce((m->>'evaluated')::boolean, true) GROUP BY 1, 2, 3, 4`,
};

/** (Milestones left not evaluated, `evaluated: false`, count neither as evaluated nor as passed.) */

/** The six finding fact kinds; the flag semantics are those of metrics/failure-modes.query.ts. */
export const findingRollup: Rollup = {
  table: "score_finding_hourly",
  keys: [
    ["agent", "text"],
    ["kind", "text"],
    ["k1", "text"],
    ["k2", "text"],
  ],
  measures: counts("findings", "traces", "failed_traces"),
  cells: (where) => {
    const head = (agent: string, kind: string, k1: string, k2: string) =>
      sql.raw(`SELECT f.project_id, ${hourExpr("f.start_ns")} AS hour_ns, f.service_name,
        ${agent} AS agent, '${kind}' AS kind, ${k1} AS k1, ${k2} AS k2, count(*) AS findings`);
    const allAgents = sql`${where("f")} AND ${sql.raw(systemFinding)}`;
    const perAgent = sql`${where("f")} AND ${sql.raw(systemFinding)} AND f.agent IS NOT NULL`;
    return sql`
      ${head("NULL::text", "mode", "f.mode", "''")}, count(*) FILTER (WHERE f.first_of_mode) AS traces,
        count(*) FILTER (WHERE f.first_of_mode AND f.success = false) AS failed_traces
      FROM trace_findings f WHERE ${allAgents} GROUP BY 1, 2, 3, 4, 5, 6, 7
      UNION ALL
      ${head("f.agent", "mode", "f.mode", "''")}, count(*) FILTER (WHERE f.first_of_agent_mode) AS traces,
        count(*) FILTER (WHERE f.first_of_agent_mode AND f.success = false) AS failed_traces
      FROM trace_findings f WHERE ${perAgent} GROUP BY 1, 2, 3, 4, 5, 6, 7
      UNION ALL
      ${head("NULL::text", "category", "f.category", "''")}, count(*) FILTER (WHERE f.first_of_category) AS traces, 0 AS failed_traces
      FROM trace_findings f WHERE ${allAgents} GROUP BY 1, 2, 3, 4, 5, 6, 7
      UNION ALL
      ${head("f.agent", "category", "f.category", "''")}, count(DISTINCT f.trace_id) AS traces, 0 AS failed_traces
      FROM trace_findings f WHERE ${perAgent} GROUP BY 1, 2, 3, 4, 5, 6, 7
      UNION ALL
      ${head("NULL::text", "source", "f.mode", "f.source")}, count(DISTINCT f.trace_id) AS traces, 0 AS failed_traces
      FROM trace_findings f WHERE ${allAgents} GROUP BY 1, 2, 3, 4, 5, 6, 7
      UNION ALL
      ${head("f.agent", "source", "f.mode", "f.source")}, count(DISTINCT f.trace_id) AS traces, 0 AS failed_traces
      FROM trace_findings f WHERE ${perAgent} GROUP BY 1, 2, 3, 4, 5, 6, 7`;
  },
};

/**
 * The judges' current findings (judge_findings) per (hour, service, agent scope, kind, k1, k2), kinds
 * as in findingRollup ('source': k2 = the judge id). `extra` counts the traces with the judge finding
 * and no code finding of the same key (mode, category, or agent and mode), so "code or judge" is the
 * code count plus `extra`. It reads trace_findings and trace_scores too, so a re-score takes a folded
 * trace's old cells out like the other rollups', and recordJudgeFindings appends (new − old) on a folded trace.
 */
export const judgeFindingRollup: Rollup = {
  table: "score_judge_finding_hourly",
  keys: [
    ["agent", "text"],
    ["kind", "text"],
    ["k1", "text"],
    ["k2", "text"],
  ],
  measures: counts("findings", "traces", "extra", "failed_traces", "extra_failed"),
  cells: (where) => {
    const codeHas = (cond: string) => `EXISTS (SELECT 1 FROM trace_findings tf WHERE tf.project_id = jf.project_id AND tf.trace_id = jf.trace_id AND ${cond})`;
    const facts = sql`SELECT jf.project_id, jf.start_ns, jf.service_name, jf.trace_id, jf.producer_id, jf.mode, jf.category, jf.agent, s.success,
        ${sql.raw(codeHas("tf.mode = jf.mode"))} AS code_mode, ${sql.raw(codeHas("tf.category = jf.category"))} AS code_category,
        ${sql.raw(codeHas("tf.mode = jf.mode AND tf.agent IS NOT DISTINCT FROM jf.agent"))} AS code_agent_mode,
        ${sql.raw(codeHas("tf.category = jf.category AND tf.agent IS NOT DISTINCT FROM jf.agent"))} AS code_agent_category
      FROM judge_findings jf JOIN trace_scores s ON s.project_id = jf.project_id AND s.trace_id = jf.trace_id WHERE ${where("jf")} AND ${sql.raw(systemRun)}`;
    const part = (agent: string, kind: string, k1: string, k2: string, flag: string | null, perAgent: boolean) =>
      sql.raw(`SELECT j.project_id, ${hourExpr("j.start_ns")} AS hour_ns, j.service_name, ${agent} AS agent, '${kind}' AS kind, ${k1} AS k1, ${k2} AS k2,
        count(*) AS findings, count(DISTINCT j.trace_id) AS traces,
        ${flag === null ? "0" : `count(DISTINCT j.trace_id) FILTER (WHERE NOT ${flag})`} AS extra,
        count(DISTINCT j.trace_id) FILTER (WHERE j.success = false) AS failed_traces,
        ${flag === null ? "0" : `count(DISTINCT j.trace_id) FILTER (WHERE j.success = false AND NOT ${flag})`} AS extra_failed
        FROM j${perAgent ? " WHERE j.agent IS NOT NULL" : ""} GROUP BY 1, 2, 3, 4, 5, 6, 7`);
    return sql`WITH j AS MATERIALIZED (${facts})
      ${part("NULL::text", "mode", "j.mode", "''", "j.code_mode", false)}
      UNION ALL ${part("j.agent", "mode", "j.mode", "''", "j.code_agent_mode", true)}
      UNION ALL ${part("NULL::text", "category", "j.category", "''", "j.code_category", false)}
      UNION ALL ${part("j.agent", "category", "j.category", "''", "j.code_agent_category", true)}
      UNION ALL ${part("NULL::text", "source", "j.mode", "j.producer_id", null, false)}
      UNION ALL ${part("j.agent", "source", "j.mode", "j.producer_id", null, true)}`;
  },
};

export const rollups: readonly Rollup[] = [agentRollup, traceRollup, taskRollup, milestoneRollup, findingRollup, judgeFindingRollup];

const rollupKeyNames = (r: Rollup): string[] => ["project_id", "hour_ns", "service_name", ...r.keys.map(([n]) => n)];
export const rollupColumnNames = (r: Rollup): string[] => [...rollupKeyNames(r), ...r.measures.map(([n]) => n)];

/** r.cells with the rollup's columns in table order, so INSERT ... SELECT and UNION ALL match them by name. */
export function cellsByName(r: Rollup, where: BaseWhere): SQL {
  return sql`SELECT ${sql.raw(
    rollupColumnNames(r)
      .map((c) => `n.${c}`)
      .join(", "),
  )} FROM (${r.cells((a) => sql`${where(a)} AND ${productionTrace(a)}`)}) n`;
}

/**
 * Rows of a base-table alias that count in production metrics: not of an experiment or replay run the
 * project keeps out (trace_scores.metrics_excluded, decided when the run is scored; docs/experiments.md §2).
 * Every rollup's cells go through cellsByName, so stored cells, folds and reads all leave the same runs out.
 */
export function productionTrace(alias: string): SQL {
  const a = sql.raw(alias);
  return sql`NOT EXISTS (SELECT 1 FROM trace_scores xs WHERE xs.metrics_excluded AND xs.project_id = ${a}.project_id AND xs.trace_id = ${a}.trace_id)`;
}

/** The rollup's append-only delta table (schema/rollups.ts rollupDeltaTable). */
export const deltaTableOf = (r: Rollup): string => `${r.table}_delta`;

/**
 * Appends (new contribution − old contribution) of some traces (`where`) to the rollup's delta
 * table, one row per changed cell (cells whose measures all net to zero are left out). Plain
 * inserts: no writer waits on the cells other traces of the hour share (compactRollupSql folds them).
 */
export function applyTraceDeltaSql(r: Rollup, where: BaseWhere, old: Record<string, unknown>[] | SQL): SQL {
  const keys = rollupKeyNames(r);
  const cols = rollupColumnNames(r);
  const types: [string, string][] = [["project_id", "text"], ["hour_ns", "bigint"], ["service_name", "text"], ...r.keys, ...r.measures];
  const recordType = types.map(([n, t]) => `${n} ${t}`).join(", ");
  // The old cells as a jsonb parameter, or an SQL expression yielding them (persist's precompiled statement).
  const oldRows = Array.isArray(old)
    ? sql`${JSON.stringify(old.map((row) => Object.fromEntries(cols.map((c) => [c, row[c] === null || row[c] === undefined ? null : String(row[c])]))))}::jsonb`
    : old;
  const measureSums = r.measures.map(([n]) => `sum(d.${n}) AS ${n}`).join(", ");
  const changed = r.measures.map(([n]) => `sum(d.${n}) <> 0`).join(" OR ");
  const negated = r.measures.map(([n]) => `-o.${n}`).join(", ");
  return sql`
    INSERT INTO ${sql.identifier(deltaTableOf(r))} (${sql.raw(cols.join(", "))})
    SELECT ${sql.raw(keys.map((k) => `d.${k}`).join(", "))}, ${sql.raw(measureSums)} FROM (
      ${cellsByName(r, where)}
      UNION ALL
      SELECT ${sql.raw(keys.map((k) => `o.${k}`).join(", "))}, ${sql.raw(negated)} FROM jsonb_to_recordset(${oldRows}) AS o(${sql.raw(recordType)})
    ) d GROUP BY ${sql.raw(keys.map((k) => `d.${k}`).join(", "))} HAVING ${sql.raw(changed)}`;
}

/**
 * Moves up to `limit` of the oldest delta rows into the rollup's cells, in one statement (so a
 * reader sees them in one place or the other, never both or neither). Rows a concurrent compaction
 * holds are skipped; cells are upserted in key order, so two compactions lock them in one order.
 * Returns how many delta rows it moved.
 */
export function compactRollupSql(r: Rollup, limit: number): SQL {
  const keys = rollupKeyNames(r).join(", ");
  const cols = rollupColumnNames(r).join(", ");
  const delta = sql.identifier(deltaTableOf(r));
  return sql`WITH batch AS (SELECT id FROM ${delta} ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED),
    moved AS (DELETE FROM ${delta} d USING batch b WHERE d.id = b.id RETURNING ${sql.raw(
      cols
        .split(", ")
        .map((c) => `d.${c}`)
        .join(", "),
    )}),
    folded AS (
      INSERT INTO ${sql.identifier(r.table)} (${sql.raw(cols)})
      SELECT ${sql.raw(keys)}, ${sql.raw(r.measures.map(([n]) => `sum(${n})`).join(", "))} FROM moved GROUP BY ${sql.raw(keys)} ORDER BY ${sql.raw(keys)}
      ON CONFLICT (${sql.raw(keys)}) DO UPDATE SET ${sql.raw(r.measures.map(([n]) => `${n} = ${r.table}.${n} + excluded.${n}`).join(", "))}
      RETURNING 1)
    SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM folded)::int AS cells`;
}

/** Recomputes every rollup of a project (or of all projects) from the base tables. */
function rebuildRollupSql(r: Rollup, projectId: string | null): SQL[] {
  const where: BaseWhere = (a) => (projectId === null ? sql`true` : sql`${sql.raw(a)}.project_id = ${projectId}`);
  return [
    ...[r.table, deltaTableOf(r)].map((t) =>
      projectId === null ? sql`DELETE FROM ${sql.identifier(t)}` : sql`DELETE FROM ${sql.identifier(t)} WHERE project_id = ${projectId}`,
    ),
    sql`INSERT INTO ${sql.identifier(r.table)} (${sql.raw(rollupColumnNames(r).join(", "))}) ${cellsByName(r, where)}`,
  ];
}

/**
 * Recomputes the rollups of one project (or all) from the base tables, in one
 * transaction; every trace is then folded, so none stays pending. For rows
 * written without persistTraceScores (bulk loads, benches).
 */
export async function rebuildScoreRollups(database: Database, projectId: string | null = null): Promise<void> {
  await database.db.transaction(async (tx) => {
    await tx.execute(projectId === null ? sql`DELETE FROM score_rollup_pending` : sql`DELETE FROM score_rollup_pending WHERE project_id = ${projectId}`);
    for (const r of rollups) for (const q of rebuildRollupSql(r, projectId)) await tx.execute(q);
  });
}
