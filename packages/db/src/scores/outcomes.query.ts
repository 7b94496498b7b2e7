/**
 * Token and cost multipliers against the single-agent baseline (per task and
 * overall), and task success with milestone coverage. Both read the per-trace
 * values the worker stored in trace_scores; baseline-tagged runs are the
 * reference, so they are counted but left out of the multipliers.
 */
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { clampLimit, traceScopeWhere, type MetricsFilter } from "./metrics-filter.ts";
import { decodeCursor, encodeCursor, num, numOrNull } from "./sql-util.ts";

export type BaselineSource = "baseline_run" | "configured" | "unknown" | "mixed";

export interface MultiplierAggregate {
  /** Mean of the runs' multipliers where the baseline is known; null if none. */
  value: number | null;
  /** Mean observed total (tokens or USD) over runs with a known baseline. */
  observed: number | null;
  /** Mean baseline over the same runs. */
  baseline: number | null;
  runsWithBaseline: number;
  source: BaselineSource;
  sources: { baseline_run: number; configured: number; unknown: number };
}

export interface TaskMultiplier {
  taskId: string;
  runs: number;
  baselineRuns: number;
  tokens: MultiplierAggregate;
  cost: MultiplierAggregate;
}

export interface MultiplierResult {
  overall: { runs: number; baselineRuns: number; tasks: number; tokens: MultiplierAggregate & { ratioOfTotals: number | null }; cost: MultiplierAggregate & { ratioOfTotals: number | null } };
  tasks: TaskMultiplier[];
  nextCursor: string | null;
}

function aggregatesSql(kind: "token" | "cost") {
  const k = sql.raw(kind);
  return sql`
    avg(s.${k}_multiplier) FILTER (WHERE NOT s.is_baseline)::float8 AS ${sql.raw(kind)}_value,
    avg(s.${k}_observed) FILTER (WHERE NOT s.is_baseline AND s.${k}_multiplier IS NOT NULL)::float8 AS ${sql.raw(kind)}_observed,
    avg(s.${k}_baseline) FILTER (WHERE NOT s.is_baseline AND s.${k}_multiplier IS NOT NULL)::float8 AS ${sql.raw(kind)}_baseline,
    sum(s.${k}_observed) FILTER (WHERE NOT s.is_baseline AND s.${k}_multiplier IS NOT NULL)::float8 AS ${sql.raw(kind)}_observed_sum,
    sum(s.${k}_baseline) FILTER (WHERE NOT s.is_baseline AND s.${k}_multiplier IS NOT NULL)::float8 AS ${sql.raw(kind)}_baseline_sum,
    count(s.${k}_multiplier) FILTER (WHERE NOT s.is_baseline)::int AS ${sql.raw(kind)}_known,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.${k}_baseline_source = 'baseline_run')::int AS ${sql.raw(kind)}_src_run,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.${k}_baseline_source = 'configured')::int AS ${sql.raw(kind)}_src_configured,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.${k}_baseline_source = 'unknown')::int AS ${sql.raw(kind)}_src_unknown`;
}

function aggregateOf(r: Record<string, unknown>, kind: "token" | "cost"): MultiplierAggregate {
  const sources = { baseline_run: num(r[`${kind}_src_run`]), configured: num(r[`${kind}_src_configured`]), unknown: num(r[`${kind}_src_unknown`]) };
  const present = (Object.keys(sources) as (keyof typeof sources)[]).filter((k) => sources[k] > 0);
  return {
    value: numOrNull(r[`${kind}_value`]),
    observed: numOrNull(r[`${kind}_observed`]),
    baseline: numOrNull(r[`${kind}_baseline`]),
    runsWithBaseline: num(r[`${kind}_known`]),
    source: present.length === 1 ? present[0]! : present.length === 0 ? "unknown" : "mixed",
    sources,
  };
}

const ratio = (a: unknown, b: unknown): number | null => (numOrNull(a) === null || !numOrNull(b) ? null : Number(a) / Number(b));

export async function multiplierMetrics(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { cursor?: string | undefined; limit?: number | undefined },
): Promise<MultiplierResult> {
  const db = database.db;
  const where = traceScopeWhere("s", projectId, filter);
  const limit = clampLimit(opts.limit);
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, 1);
  const [overallRow] = rowsOf(
    await db.execute(sql`SELECT count(*) FILTER (WHERE NOT s.is_baseline)::int AS runs, count(*) FILTER (WHERE s.is_baseline)::int AS baseline_runs,
      count(DISTINCT s.task_id)::int AS tasks, ${aggregatesSql("token")}, ${aggregatesSql("cost")}
      FROM trace_scores s WHERE ${where}`),
  );
  // Runs without a task id count in the overall figures only.
  const taskRows = rowsOf(
    await db.execute(sql`SELECT s.task_id, count(*) FILTER (WHERE NOT s.is_baseline)::int AS runs, count(*) FILTER (WHERE s.is_baseline)::int AS baseline_runs,
      ${aggregatesSql("token")}, ${aggregatesSql("cost")}
      FROM trace_scores s WHERE ${where} AND s.task_id IS NOT NULL ${after === null ? sql`` : sql`AND s.task_id > ${String(after[0])}`}
      GROUP BY s.task_id ORDER BY s.task_id LIMIT ${limit + 1}`),
  );
  const o = overallRow ?? {};
  const page = taskRows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    overall: {
      runs: num(o.runs),
      baselineRuns: num(o.baseline_runs),
      tasks: num(o.tasks),
      tokens: { ...aggregateOf(o, "token"), ratioOfTotals: ratio(o.token_observed_sum, o.token_baseline_sum) },
      cost: { ...aggregateOf(o, "cost"), ratioOfTotals: ratio(o.cost_observed_sum, o.cost_baseline_sum) },
    },
    tasks: page.map((r) => ({
      taskId: String(r.task_id),
      runs: num(r.runs),
      baselineRuns: num(r.baseline_runs),
      tokens: aggregateOf(r, "token"),
      cost: aggregateOf(r, "cost"),
    })),
    nextCursor: taskRows.length > limit && last ? encodeCursor([String(last.task_id)]) : null,
  };
}

export interface SuccessInputs {
  /** Per task: mean success over its runs with a known outcome (a run without task id is its own task). */
  tasks: { taskId: string; runs: number; successRate: number }[];
  runs: number;
  successfulRuns: number;
  runsWithoutOutcome: number;
  milestones: {
    traces: number;
    meanPartialCredit: number | null;
    fullSuccessRate: number | null;
    meanFurthestIndex: number | null;
    perMilestone: { id: string; traces: number; passed: number; passRate: number }[];
  };
}

export async function successInputs(database: Database, projectId: string, filter: MetricsFilter): Promise<SuccessInputs> {
  const db = database.db;
  const where = traceScopeWhere("s", projectId, filter);
  const [taskRows, countRows, milestoneRows, perMilestoneRows] = await Promise.all([
    db.execute(sql`SELECT coalesce(s.task_id, 'trace:' || s.trace_id) AS task, count(*)::int AS runs, avg(s.success::int)::float8 AS rate
      FROM trace_scores s WHERE ${where} AND s.success IS NOT NULL GROUP BY 1`),
    db.execute(sql`SELECT count(*) FILTER (WHERE s.success IS NOT NULL)::int AS runs, count(*) FILTER (WHERE s.success)::int AS ok,
      count(*) FILTER (WHERE s.success IS NULL)::int AS unknown FROM trace_scores s WHERE ${where}`),
    db.execute(sql`SELECT count(s.milestone_set_id)::int AS traces, avg(s.milestone_partial_credit)::float8 AS credit,
      avg(s.milestone_full_success::int)::float8 AS full, avg(s.milestone_furthest_index)::float8 AS furthest
      FROM trace_scores s WHERE ${where} AND s.milestone_set_id IS NOT NULL`),
    db.execute(sql`SELECT m->>'id' AS id, count(*)::int AS traces, count(*) FILTER (WHERE (m->>'passed')::boolean)::int AS passed
      FROM trace_scores s, jsonb_array_elements(s.milestone_detail) AS m
      WHERE ${where} AND s.milestone_detail IS NOT NULL GROUP BY 1 ORDER BY 1`),
  ]);
  const c = rowsOf(countRows)[0] ?? {};
  const m = rowsOf(milestoneRows)[0] ?? {};
  return {
    tasks: rowsOf(taskRows).map((r) => ({ taskId: String(r.task), runs: num(r.runs), successRate: num(r.rate) })),
    runs: num(c.runs),
    successfulRuns: num(c.ok),
    runsWithoutOutcome: num(c.unknown),
    milestones: {
      traces: num(m.traces),
      meanPartialCredit: numOrNull(m.credit),
      fullSuccessRate: numOrNull(m.full),
      meanFurthestIndex: numOrNull(m.furthest),
      perMilestone: rowsOf(perMilestoneRows).map((r) => ({ id: String(r.id), traces: num(r.traces), passed: num(r.passed), passRate: num(r.passed) / Math.max(1, num(r.traces)) })),
    },
  };
}
