/**
 * Token and cost multipliers against the single-agent baseline (per task and
 * overall), and the counts task success and milestone coverage are computed
 * from (the interval and rates: core's successMetricsOf). Baseline-tagged runs
 * are the reference, so they are counted but left out of the multipliers.
 * Baseline runs are also left out of the success rate (milestone coverage
 * still covers every scored trace). Both read the hourly rollups (rollups/rollups.ts): sums there are exact numerics,
 * so a mean is the sum rounded to float8 divided by the count.
 *
 * Multipliers are computed here, against each task's CURRENT baseline
 * (scores/baselines.ts), never read from what the worker stored: a run scored before
 * its baseline existed is measured as soon as the baseline is. A run's
 * baseline depends only on its task and service, so the rollups keep
 * baseline-independent sums per (hour, service, task) (tokens, cost and its
 * count over non-baseline runs) and the mean of the runs' multipliers in a
 * cell group is sum(observed) / baseline.
 */
import { ratioOrNull, type SuccessInputs } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { inReadSnapshot, rowsOf, type Database } from "../client.ts";
import { outcomeJudgeId } from "../judges/findings.ts";
import type { FindingSourceFilter } from "./judge-rates.ts";
import { traceScopeWhere, type MetricsFilter } from "./filter.ts";
import { rollupRows } from "./rollup-source.ts";
import { baselineRunsSql, configuredBaselineSql, pickBaselineSql } from "../scores/baselines.ts";
import { milestoneRollup, taskRollup, traceRollup } from "../rollups/rollups.ts";
import { clampLimit, decodeCursor, encodeCursor, num, numOrNull } from "../sql/util.ts";

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
  overall: {
    runs: number;
    baselineRuns: number;
    tasks: number;
    tokens: MultiplierAggregate & { ratioOfTotals: number | null };
    cost: MultiplierAggregate & { ratioOfTotals: number | null };
  };
  tasks: TaskMultiplier[];
  nextCursor: string | null;
}

/** Over task or trace cells (alias s): the columns the per-run aggregation gave. */
function aggregatesSql(kind: "token" | "cost") {
  const k = (m: string) => sql.raw(`s.${kind}_${m}`);
  const out = (m: string) => sql.raw(`${kind}_${m}`);
  return sql`
    (sum(${k("value_sum")})::float8 / nullif(sum(${k("known")}), 0)::float8) AS ${out("value")},
    (sum(${k("observed_sum")})::float8 / nullif(sum(${k("observed_n")}), 0)::float8) AS ${out("observed")},
    (sum(${k("baseline_sum")})::float8 / nullif(sum(${k("baseline_n")}), 0)::float8) AS ${out("baseline")},
    CASE WHEN sum(${k("observed_n")}) > 0 THEN sum(${k("observed_sum")})::float8 END AS ${out("observed_sum")},
    CASE WHEN sum(${k("baseline_n")}) > 0 THEN sum(${k("baseline_sum")})::float8 END AS ${out("baseline_sum")},
    coalesce(sum(${k("known")}), 0)::int AS ${out("known")},
    coalesce(sum(${k("src_run")}), 0)::int AS ${out("src_run")},
    coalesce(sum(${k("src_configured")}), 0)::int AS ${out("src_configured")},
    coalesce(sum(${k("src_unknown")}), 0)::int AS ${out("src_unknown")}`;
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

/** Observed total over baseline total; null when either is absent (no run with a known baseline). */
function ratioOfTotals(observed: unknown, baseline: unknown): number | null {
  const o = numOrNull(observed);
  const b = numOrNull(baseline);
  return o === null || b === null ? null : ratioOrNull(o, b);
}

/**
 * Per (service, task) groups of a window's runs (alias x: service_name, task_key,
 * runs, token_sum, cost_sum, cost_n) measured against their current baseline:
 * the per-run multiplier columns aggregatesSql reads. task_key null = runs without a task id.
 */
function measuredSql(projectId: string, groups: SQL): SQL {
  const measures = (kind: "token" | "cost") => {
    const [sum, n] = kind === "token" ? ["x.token_sum", "x.runs"] : ["x.cost_sum", "x.cost_n"];
    const b = `${kind}_base`;
    return sql.raw(`
      CASE WHEN ${b} IS NOT NULL AND ${n} > 0 THEN ${sum}::float8 / ${b} ELSE 0 END AS ${kind}_value_sum,
      CASE WHEN ${b} IS NOT NULL THEN ${n} ELSE 0 END AS ${kind}_known,
      CASE WHEN ${b} IS NOT NULL THEN ${sum} ELSE 0 END AS ${kind}_observed_sum,
      CASE WHEN ${b} IS NOT NULL THEN ${n} ELSE 0 END AS ${kind}_observed_n,
      CASE WHEN ${b} IS NOT NULL THEN ${b} * ${n} ELSE 0 END AS ${kind}_baseline_sum,
      CASE WHEN ${b} IS NOT NULL THEN ${n} ELSE 0 END AS ${kind}_baseline_n,
      CASE WHEN ${kind}_src = 'baseline_run' THEN x.runs ELSE 0 END AS ${kind}_src_run,
      CASE WHEN ${kind}_src = 'configured' THEN x.runs ELSE 0 END AS ${kind}_src_configured,
      CASE WHEN ${kind}_src = 'unknown' THEN x.runs ELSE 0 END AS ${kind}_src_unknown`);
  };
  return sql`(SELECT x.task_key, ${measures("token")}, ${measures("cost")} FROM (
      SELECT g.*, ${pickBaselineSql("token")}, ${pickBaselineSql("cost")}
      FROM ${groups} g
      LEFT JOIN ${baselineRunsSql(projectId)} r ON r.task_id = g.task_key
      LEFT JOIN ${configuredBaselineSql(projectId, sql`g.task_key`, sql`g.service_name`)} ON true
    ) x)`;
}

/** Task cells summed over the window's hours per (service, task): a run's baseline depends on nothing else. */
function taskGroupsSql(cells: SQL, pageKeys: string[] | null): SQL {
  const page = pageKeys === null ? sql`` : sql` AND s.task_key = ANY(${sql.param(pageKeys)}::text[])`;
  return sql`(SELECT s.service_name, s.task_key, sum(s.runs) AS runs, sum(s.token_sum) AS token_sum, sum(s.cost_sum) AS cost_sum, sum(s.cost_n) AS cost_n
    FROM ${cells} s WHERE s.has_task${page} GROUP BY s.service_name, s.task_key HAVING sum(s.runs) > 0)`;
}

export async function multiplierMetrics(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { cursor?: string | undefined; limit?: number | undefined },
): Promise<MultiplierResult> {
  const db = database.db;
  const cells = rollupRows(taskRollup, projectId, filter, { traceScoped: true });
  const traceCells = rollupRows(traceRollup, projectId, filter, { traceScoped: true });
  const limit = clampLimit(opts.limit);
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, 1);
  if (after !== null && typeof after[0] !== "string") decodeCursor("", 1); // [task id], as encoded below
  // Runs without a task id are grouped per service (their only baseline is the service's configured figure).
  const noTaskGroups = sql`(SELECT s.service_name, NULL::text AS task_key, sum(s.notask_runs) AS runs, sum(s.notask_token_sum) AS token_sum,
    sum(s.notask_cost_sum) AS cost_sum, sum(s.notask_cost_n) AS cost_n FROM ${traceCells} s GROUP BY s.service_name HAVING sum(s.notask_runs) > 0)`;
  // Task cells can be as many as traces: one pass over them groups per (service, task) for both the overall
  // figures and the page's keys; only the page's tasks are then measured per task.
  const groupCols = sql.raw("g.service_name, g.task_key, g.runs, g.token_sum, g.cost_sum, g.cost_n");
  const overallResult = await db.execute(sql`WITH g AS MATERIALIZED (
      SELECT s.service_name, s.task_key, sum(s.trace_rows) AS trace_rows, sum(s.runs) AS runs, sum(s.token_sum) AS token_sum,
        sum(s.cost_sum) AS cost_sum, sum(s.cost_n) AS cost_n
      FROM ${cells} s WHERE s.has_task GROUP BY s.service_name, s.task_key),
    k AS (SELECT g.task_key FROM g GROUP BY g.task_key HAVING sum(g.trace_rows) > 0)
    SELECT t.runs, t.baseline_runs, a.*, (SELECT count(*) FROM k)::int AS tasks,
      ARRAY(SELECT k.task_key FROM k ${after === null ? sql`` : sql`WHERE k.task_key > ${String(after[0])}`} ORDER BY k.task_key LIMIT ${limit + 1}) AS page
    FROM (SELECT coalesce(sum(s.runs), 0)::int AS runs, coalesce(sum(s.baseline_runs), 0)::int AS baseline_runs FROM ${traceCells} s) t,
      (SELECT ${aggregatesSql("token")}, ${aggregatesSql("cost")}
        FROM ${measuredSql(projectId, sql`(SELECT ${groupCols} FROM g WHERE g.runs > 0 UNION ALL SELECT * FROM ${noTaskGroups} ng)`)} s) a`);
  const o: Record<string, unknown> = rowsOf(overallResult)[0] ?? {};
  const pageKeys = (o.page as string[] | null) ?? [];
  const taskRows =
    pageKeys.length === 0
      ? []
      : rowsOf(
          await db.execute(sql`SELECT c.task_id, c.runs, c.baseline_runs, m.* FROM
            (SELECT s.task_key AS task_id, sum(s.runs)::int AS runs, sum(s.baseline_runs)::int AS baseline_runs
              FROM ${cells} s WHERE s.has_task AND s.task_key = ANY(${sql.param(pageKeys)}::text[]) GROUP BY s.task_key) c
            LEFT JOIN (SELECT s.task_key, ${aggregatesSql("token")}, ${aggregatesSql("cost")}
              FROM ${measuredSql(projectId, taskGroupsSql(cells, pageKeys))} s GROUP BY s.task_key) m ON m.task_key = c.task_id
            ORDER BY c.task_id`),
        );
  const page = taskRows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    overall: {
      runs: num(o.runs),
      baselineRuns: num(o.baseline_runs),
      tasks: num(o.tasks),
      tokens: { ...aggregateOf(o, "token"), ratioOfTotals: ratioOfTotals(o.token_observed_sum, o.token_baseline_sum) },
      cost: { ...aggregateOf(o, "cost"), ratioOfTotals: ratioOfTotals(o.cost_observed_sum, o.cost_baseline_sum) },
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

/** Outcome counts per source: runs whose outcome came from the tracer or the API, and runs graded by the outcome-rubric judge. */
export interface OutcomeSourceCounts {
  tracer: number;
  judge: number;
}

/**
 * What core's successMetricsOf computes the success metrics from (docs/metrics.md §10): counts and SQL means only.
 * A run's outcome is the API override, else the tracer's tag (both already in trace_scores.success), else the
 * current verdict of the outcome-rubric judge (source judge). `source` picks code (the first two), judge, or all.
 */
export async function successInputs(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { source?: FindingSourceFilter | undefined } = {},
): Promise<SuccessInputs & { outcomeSources: OutcomeSourceCounts }> {
  // Several queries: one snapshot, so they count the same traces.
  return inReadSnapshot(database, (snapshot) => successInputsIn(snapshot, projectId, filter, opts));
}

async function successInputsIn(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { source?: FindingSourceFilter | undefined },
): Promise<SuccessInputs & { outcomeSources: OutcomeSourceCounts }> {
  const db = database.db;
  const source = opts.source ?? "all";
  const traces = rollupRows(traceRollup, projectId, filter, { traceScoped: true });
  const [taskRows, countRows, perMilestoneRows, judged] = await Promise.all([
    db.execute(sql`SELECT s.task_key AS task, sum(s.outcome_n)::int AS runs, sum(s.outcome_ok)::int AS ok
      FROM ${rollupRows(taskRollup, projectId, filter, { traceScoped: true })} s GROUP BY s.task_key HAVING sum(s.outcome_n) > 0`),
    db.execute(sql`SELECT sum(t.outcome_runs)::int AS runs, sum(t.outcome_ok)::int AS ok, sum(t.outcome_unknown)::int AS unknown, sum(t.baseline_runs)::int AS baseline_runs,
      sum(t.milestone_traces)::int AS traces, (sum(t.credit_sum)::float8 / nullif(sum(t.credit_n), 0)::float8) AS credit,
      (sum(t.full_sum)::numeric / nullif(sum(t.full_n), 0)::numeric)::float8 AS full,
      (sum(t.furthest_sum) / nullif(sum(t.furthest_n), 0)::numeric)::float8 AS furthest FROM ${traces} t`),
    db.execute(sql`SELECT m.milestone_id AS id, sum(m.traces)::int AS traces, sum(m.passed)::int AS passed
      FROM ${rollupRows(milestoneRollup, projectId, filter, { traceScoped: true })} m GROUP BY 1 HAVING sum(m.traces) > 0
      ORDER BY ${configuredMilestoneOrder(projectId, filter.service, sql`m.milestone_id`)} NULLS LAST, 1`),
    source === "code" ? Promise.resolve(null) : db.execute(judgeGradedRunsSql(projectId, filter)),
  ]);
  const c = rowsOf(countRows)[0] ?? {};
  // Per task (the same task keys as score_task_hourly): runs with an outcome and successful ones, per source.
  const tasks = new Map<string, { runs: number; ok: number }>();
  const add = (task: string, runs: number, ok: number) => {
    const t = tasks.get(task) ?? { runs: 0, ok: 0 };
    tasks.set(task, { runs: t.runs + runs, ok: t.ok + ok });
  };
  if (source !== "judge") for (const r of rowsOf(taskRows)) add(String(r.task), num(r.runs), num(r.ok));
  let judgeRuns = 0;
  let judgeOk = 0;
  for (const r of judged === null ? [] : rowsOf(judged)) {
    add(String(r.task), num(r.runs), num(r.ok));
    judgeRuns += num(r.runs);
    judgeOk += num(r.ok);
  }
  const tracerRuns = num(c.runs);
  const runs = (source === "judge" ? 0 : tracerRuns) + judgeRuns;
  return {
    tasks: [...tasks].filter(([, t]) => t.runs > 0).map(([taskId, t]) => ({ taskId, runs: t.runs, successRate: t.ok / t.runs })),
    runs,
    successfulRuns: (source === "judge" ? 0 : num(c.ok)) + judgeOk,
    // Runs with no outcome from any source the filter counts.
    runsWithoutOutcome: source === "judge" ? num(c.unknown) - judgeRuns + tracerRuns : num(c.unknown) - judgeRuns,
    baselineRuns: num(c.baseline_runs),
    outcomeSources: { tracer: source === "judge" ? 0 : tracerRuns, judge: judgeRuns },
    milestones: {
      traces: num(c.traces),
      meanPartialCredit: numOrNull(c.credit),
      fullSuccessRate: numOrNull(c.full),
      meanFurthestIndex: numOrNull(c.furthest),
      perMilestone: rowsOf(perMilestoneRows).map((r) => ({ id: String(r.id), traces: num(r.traces), passed: num(r.passed) })),
    },
  };
}

/**
 * A milestone's place in the configured milestone sets: its position in the set of the filter's
 * service (the project-wide set without a service filter), else in any other set of the project.
 * Null for an id no set lists any more (those follow, by id).
 */
function configuredMilestoneOrder(projectId: string, service: string | undefined, milestoneId: SQL): SQL {
  return sql`(SELECT min(CASE WHEN ms.service_name IS NOT DISTINCT FROM ${service ?? null}::text THEN 0 ELSE 1000000 END + e.pos)
    FROM milestone_sets ms CROSS JOIN LATERAL jsonb_array_elements(ms.milestones) WITH ORDINALITY AS e(m, pos)
    WHERE ms.project_id = ${projectId} AND e.m ->> 'id' = ${milestoneId})`;
}

/** Per task: the system's runs in scope with no outcome of their own that the outcome-rubric judge graded (its current verdict). */
function judgeGradedRunsSql(projectId: string, filter: MetricsFilter): SQL {
  return sql`SELECT coalesce(s.task_id, 'trace:' || s.trace_id) AS task, count(*)::int AS runs, count(*) FILTER (WHERE v.outcome_success)::int AS ok
    FROM judge_current_verdicts v JOIN trace_scores s ON s.project_id = v.project_id AND s.trace_id = v.trace_id
    WHERE v.project_id = ${projectId} AND v.producer_id = ${outcomeJudgeId} AND v.status = 'succeeded' AND v.outcome_success IS NOT NULL
      AND v.start_ns >= ${filter.fromNs.toString()}::bigint AND v.start_ns < ${filter.toNs.toString()}::bigint
      AND s.success IS NULL AND NOT s.is_baseline AND NOT s.metrics_excluded AND ${traceScopeWhere("s", projectId, filter)}
    GROUP BY 1`;
}
