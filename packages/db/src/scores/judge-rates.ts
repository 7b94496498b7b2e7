/**
 * The judges' side of the failure-mode rates (docs/metrics.md §11, sources): current judge
 * findings (judge_findings) of the scored traces in scope, each flagged with whether a code
 * finding already has its mode for the trace, so "code or judge" counts a trace once. Judges run
 * on a sample of traces, so these are read from the base rows (index on project and start),
 * never rolled up: judge rows are a small fraction of code findings.
 */
import { mastModeIds } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { judgeAsksAbout } from "../judge-findings.ts";
import { traceScopeWhere, type MetricsFilter } from "./metrics-filter.ts";
import { num } from "./sql-util.ts";

/** Which findings a rate counts: code detectors only, judges only, or either (default). */
export type FindingSourceFilter = "code" | "judge" | "all";

/**
 * One row per current judge finding in scope (alias j): trace_id, producer_id, mode, category,
 * agent, service_name, success and code_mode / code_category / code_agent_mode (a code finding of
 * the same mode / category / agent and mode exists on the trace; with an agent filter, the agent's).
 */
export function judgeFindingFacts(projectId: string, f: MetricsFilter): SQL {
  const codeAgent = f.agent === undefined ? sql`` : sql` AND tf.agent = ${f.agent}`;
  const codeHas = (cond: SQL) => sql`EXISTS (SELECT 1 FROM trace_findings tf WHERE tf.project_id = jf.project_id AND tf.trace_id = jf.trace_id AND ${cond})`;
  return sql`(SELECT jf.trace_id, jf.producer_id, jf.mode, jf.category, jf.agent, s.service_name, s.success,
      ${codeHas(sql`tf.mode = jf.mode${codeAgent}`)} AS code_mode,
      ${codeHas(sql`tf.category = jf.category${codeAgent}`)} AS code_category,
      ${codeHas(sql`tf.mode = jf.mode AND tf.agent = jf.agent`)} AS code_agent_mode
    FROM judge_findings jf JOIN trace_scores s ON s.project_id = jf.project_id AND s.trace_id = jf.trace_id
    WHERE jf.project_id = ${projectId} AND jf.start_ns >= ${f.fromNs.toString()}::bigint AND jf.start_ns < ${f.toNs.toString()}::bigint
      AND ${traceScopeWhere("s", projectId, f)}${f.agent === undefined ? sql`` : sql` AND jf.agent = ${f.agent}`})`;
}

/** Per key: traces with a judge finding, those of them with no code finding of the key, and the failed ones of each. */
export interface JudgeKeyCounts {
  traces: number;
  extra: number;
  failed: number;
  extraFailed: number;
}

/** Judge counts per mode or category (the flag telling "code has it too" follows the key). */
export async function judgeCountsBy(database: Database, facts: SQL, key: "mode" | "category"): Promise<Map<string, JudgeKeyCounts>> {
  const flag = sql.raw(key === "mode" ? "j.code_mode" : "j.code_category");
  const rows = rowsOf(
    await database.db.execute(sql`SELECT j.${sql.raw(key)} AS k, count(DISTINCT j.trace_id)::int AS traces,
      count(DISTINCT j.trace_id) FILTER (WHERE NOT ${flag})::int AS extra,
      count(DISTINCT j.trace_id) FILTER (WHERE j.success = false)::int AS failed,
      count(DISTINCT j.trace_id) FILTER (WHERE j.success = false AND NOT ${flag})::int AS extra_failed
      FROM ${facts} j GROUP BY 1`),
  );
  return new Map(rows.map((r) => [String(r.k), { traces: num(r.traces), extra: num(r.extra), failed: num(r.failed), extraFailed: num(r.extra_failed) }]));
}

/** Per (mode, judge): findings and distinct traces. */
export async function judgeSources(database: Database, facts: SQL): Promise<{ mode: string; source: string; findings: number; traces: number }[]> {
  const rows = rowsOf(
    await database.db.execute(sql`SELECT j.mode, j.producer_id AS source, count(*)::int AS findings, count(DISTINCT j.trace_id)::int AS traces
      FROM ${facts} j GROUP BY 1, 2 ORDER BY 1, 2`),
  );
  return rows.map((r) => ({ mode: String(r.mode), source: String(r.source), findings: num(r.findings), traces: num(r.traces) }));
}

/** Per (agent or service, mode) numerators of the judge findings: all of them (judge) or those code did not find (all). */
export function judgeGroupNumerators(facts: SQL, byAgent: boolean, onlyExtra: boolean): SQL {
  const group = byAgent ? sql.raw("j.agent") : sql.raw("coalesce(j.service_name, '')");
  const flag = sql.raw(byAgent ? "j.code_agent_mode" : "j.code_mode");
  const where = [byAgent ? sql`j.agent IS NOT NULL` : sql`true`, onlyExtra ? sql`NOT ${flag}` : sql`true`];
  return sql`SELECT ${group} AS g, j.mode, count(DISTINCT j.trace_id)::int AS n FROM ${facts} j WHERE ${sql.join(where, sql` AND `)} GROUP BY 1, 2`;
}

/** Scored traces in scope with a current succeeded verdict: per judge, and over the judges that ask about modes. */
export async function judgedTraces(database: Database, projectId: string, f: MetricsFilter): Promise<{ byJudge: Map<string, number>; traces: number }> {
  const verdicts = sql`judge_current_verdicts v JOIN trace_scores s ON s.project_id = v.project_id AND s.trace_id = v.trace_id
    WHERE v.project_id = ${projectId} AND v.status = 'succeeded' AND v.start_ns >= ${f.fromNs.toString()}::bigint AND v.start_ns < ${f.toNs.toString()}::bigint
      AND ${traceScopeWhere("s", projectId, f)}`;
  const rows = rowsOf(await database.db.execute(sql`SELECT v.producer_id, count(*)::int AS n FROM ${verdicts} GROUP BY 1`));
  const byJudge = new Map(rows.map((r) => [String(r.producer_id), num(r.n)]));
  const askers = [...byJudge.keys()].filter((p) => mastModeIds.some((m) => judgeAsksAbout(p, m)));
  if (askers.length === 0) return { byJudge, traces: 0 };
  const [total] = rowsOf(
    await database.db.execute(sql`SELECT count(DISTINCT v.trace_id)::int AS n FROM ${verdicts} AND v.producer_id = ANY(${sql.param(askers)}::text[])`),
  );
  return { byJudge, traces: num(total?.n) };
}
