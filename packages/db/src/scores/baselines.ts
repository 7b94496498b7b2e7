/**
 * The current baseline of a run, decided when read (never frozen at scoring
 * time): a baseline run scored after the runs it measures, or re-scored, or a
 * configured figure added later, counts at once, in whatever order traces
 * arrive. Per field (tokens, cost), the same rule as core's multiplierFor:
 *  1. the mean of the task's baseline-tagged runs (cost: over those with a
 *     known cost), if > 0: "baseline_run";
 *  2. else the configured figure (a baselines row: the task's for this
 *     service, project-wide, any service; else the service's own), if > 0:
 *     "configured";
 *  3. else "unknown".
 * The per-trace read and the aggregate both use these SQL pieces, so they agree.
 */
import { scoreMultipliers, type BaselineFigures, type MultiplierScore } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";

/** (task_id, tokens, cost): mean totals of each task's baseline-tagged runs. */
export function baselineRunsSql(projectId: string): SQL {
  return sql`(SELECT b.task_id, avg(b.total_tokens)::float8 AS tokens,
      avg(b.cost_usd)::float8 AS cost, count(*)::int AS runs
    FROM trace_scores b WHERE b.project_id = ${projectId} AND b.is_baseline AND b.task_id IS NOT NULL GROUP BY b.task_id)`;
}

/** `LATERAL (...) cfg` (tokens, cost, found): the configured baseline row for a task (nullable) and a service (nullable). */
export function configuredBaselineSql(projectId: string, task: SQL, service: SQL): SQL {
  return sql`LATERAL (SELECT cb.tokens, cb.cost_usd AS cost, true AS found FROM baselines cb
    WHERE cb.project_id = ${projectId}
      AND ((${task} IS NOT NULL AND cb.task_id = ${task}) OR (cb.task_id IS NULL AND ${service} IS NOT NULL AND cb.service_name = ${service}))
    ORDER BY CASE WHEN cb.task_id IS NULL THEN 3 WHEN cb.service_name = ${service} THEN 0 WHEN cb.service_name IS NULL THEN 1 ELSE 2 END, cb.id
    LIMIT 1) cfg`;
}

/** `<kind>_base` and `<kind>_src` from the run figures (alias r) and the configured row (alias cfg). */
export function pickBaselineSql(kind: "token" | "cost"): SQL {
  const f = kind === "token" ? "tokens" : "cost";
  return sql.raw(`CASE WHEN r.${f} > 0 THEN r.${f} WHEN cfg.${f} > 0 THEN cfg.${f} END AS ${kind}_base,
    CASE WHEN r.${f} > 0 THEN 'baseline_run' WHEN cfg.${f} > 0 THEN 'configured' ELSE 'unknown' END AS ${kind}_src`);
}

export interface CurrentBaseline {
  baselineRun: (BaselineFigures & { runs: number }) | null;
  configured: BaselineFigures | null;
}

/** The figures a run of (taskId, serviceName) is measured against right now. */
export async function currentBaseline(database: Database, projectId: string, taskId: string | null, serviceName: string | null): Promise<CurrentBaseline> {
  const task = sql`${taskId}::text`;
  const service = sql`${serviceName}::text`;
  const [row] = rowsOf(
    await database.db.execute(sql`SELECT r.tokens AS run_tokens, r.cost AS run_cost, r.runs AS run_n, cfg.tokens AS cfg_tokens, cfg.cost AS cfg_cost, cfg.found
      FROM (SELECT 1) one
      LEFT JOIN ${baselineRunsSql(projectId)} r ON r.task_id = ${task}
      LEFT JOIN ${configuredBaselineSql(projectId, task, service)} ON true`),
  );
  const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  const runs = Number(row?.run_n ?? 0);
  return {
    baselineRun: runs > 0 ? { tokens: n(row?.run_tokens), costUsd: n(row?.run_cost), runs } : null,
    configured: row?.found === true ? { tokens: n(row?.cfg_tokens), costUsd: n(row?.cfg_cost) } : null,
  };
}

/** A run's multipliers against its current baseline (core's rule, so they match the aggregate). */
export async function currentMultipliers(
  database: Database,
  projectId: string,
  run: { taskId: string | null; serviceName: string | null; totalTokens: number; costUsd: number | null },
): Promise<MultiplierScore> {
  const baseline = await currentBaseline(database, projectId, run.taskId, run.serviceName);
  return scoreMultipliers({ tokens: run.totalTokens, costUsd: run.costUsd }, { baselineRun: baseline.baselineRun, configured: baseline.configured });
}
