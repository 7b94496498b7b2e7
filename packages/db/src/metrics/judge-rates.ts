/**
 * The judges' side of the failure-mode rates (docs/metrics.md §11, sources), read from the judge
 * rollup (rollups/rollups.ts judgeFindingRollup) like the code side: per key, traces with a current judge
 * finding and `extra`, those of them with no code finding of the key, so "code or judge" counts a
 * trace once (code count + extra).
 */
import { mastModeIds } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { traceScopeWhere, windowWhere, type MetricsFilter } from "./filter.ts";
import { agentScope, rollupRows } from "./rollup-source.ts";
import { judgeFindingRollup, productionTrace } from "../rollups/rollups.ts";
import { num } from "../sql/util.ts";

/** Which findings a rate counts: code detectors only, judges only, or either (default). */
export type FindingSourceFilter = "code" | "judge" | "all";

/** The judge rollup cells of the window and service (alias j), and the agent scope of a filter. */
export function judgeCells(projectId: string, f: MetricsFilter): { cells: SQL; inScope: SQL } {
  return { cells: rollupRows(judgeFindingRollup, projectId, f), inScope: agentScope("j", f.agent) };
}

/** Per key: traces with a judge finding, those of them with no code finding of the key, and the failed ones of each. */
export interface JudgeKeyCounts {
  traces: number;
  extra: number;
  failed: number;
  extraFailed: number;
}

export async function judgeCountsBy(database: Database, j: { cells: SQL; inScope: SQL }, kind: "mode" | "category"): Promise<Map<string, JudgeKeyCounts>> {
  const rows = rowsOf(
    await database.db.execute(sql`SELECT j.k1 AS k, sum(j.traces)::int AS traces, sum(j.extra)::int AS extra,
      sum(j.failed_traces)::int AS failed, sum(j.extra_failed)::int AS extra_failed
      FROM ${j.cells} j WHERE j.kind = ${kind} AND ${j.inScope} GROUP BY 1 HAVING sum(j.findings) > 0`),
  );
  return new Map(rows.map((r) => [String(r.k), { traces: num(r.traces), extra: num(r.extra), failed: num(r.failed), extraFailed: num(r.extra_failed) }]));
}

/** Per (mode, judge): findings and distinct traces. */
export async function judgeSources(
  database: Database,
  j: { cells: SQL; inScope: SQL },
): Promise<{ mode: string; source: string; findings: number; traces: number }[]> {
  const rows = rowsOf(
    await database.db.execute(sql`SELECT j.k1 AS mode, j.k2 AS source, sum(j.findings)::int AS findings, sum(j.traces)::int AS traces
      FROM ${j.cells} j WHERE j.kind = 'source' AND ${j.inScope} GROUP BY 1, 2 HAVING sum(j.findings) > 0 ORDER BY 1, 2`),
  );
  return rows.map((r) => ({ mode: String(r.mode), source: String(r.source), findings: num(r.findings), traces: num(r.traces) }));
}

/** Per (agent or service, mode) numerators of the judge findings: all of them (source judge) or those code did not find (all). */
export function judgeGroupNumerators(j: { cells: SQL; inScope: SQL }, byAgent: boolean, onlyExtra: boolean, agent: string | undefined): SQL {
  const measure = sql.raw(onlyExtra ? "j.extra" : "j.traces");
  if (byAgent) {
    const only = agent === undefined ? sql`` : sql` AND j.agent = ${agent}`;
    return sql`SELECT j.agent AS g, j.k1 AS mode, sum(${measure})::int AS n FROM ${j.cells} j
      WHERE j.kind = 'mode' AND j.agent IS NOT NULL${only} GROUP BY 1, 2 HAVING sum(${measure}) > 0`;
  }
  return sql`SELECT coalesce(j.service_name, '') AS g, j.k1 AS mode, sum(${measure})::int AS n FROM ${j.cells} j
    WHERE j.kind = 'mode' AND ${j.inScope} GROUP BY 1, 2 HAVING sum(${measure}) > 0`;
}

/**
 * Traces in scope with a current succeeded verdict: per judge, and over the judges that ask about
 * modes. Counted on the verdicts' copy of the trace start and service (judge_current_verdicts);
 * with an agent filter, on the scored traces the agent took part in.
 */
export async function judgedTraces(
  database: Database,
  projectId: string,
  f: MetricsFilter,
): Promise<{
  byJudge: Map<string, number>;
  traces: number;
  readBy: (producers: readonly string[]) => Promise<number>;
  /** Whether the judge's verdicts in scope asked about the mode (their askedModes). */
  asks: (producerId: string, mode: string) => boolean;
}> {
  const verdicts = judgedVerdicts(projectId, f);
  /** Traces in scope any of `producers` has a current succeeded verdict on: what a rate resting on them read. */
  const readBy = async (producers: readonly string[]): Promise<number> => {
    if (producers.length === 0) return 0;
    if (producers.length === 1) return byJudge.get(producers[0]!) ?? 0;
    const [row] = rowsOf(
      await database.db.execute(
        sql`SELECT count(DISTINCT v.trace_id)::int AS n FROM ${verdicts} AND v.producer_id = ANY(${sql.param([...producers])}::text[])`,
      ),
    );
    return num(row?.n);
  };
  const rows = rowsOf(await database.db.execute(sql`SELECT v.producer_id, v.asked_modes, count(*)::int AS n FROM ${verdicts} GROUP BY 1, 2`));
  const byJudge = new Map<string, number>();
  // Per judge, the union of what its verdicts in scope asked ("every" when one does not say).
  const asked = new Map<string, Set<string> | "every">();
  for (const r of rows) {
    const p = String(r.producer_id);
    byJudge.set(p, (byJudge.get(p) ?? 0) + num(r.n));
    const modes = r.asked_modes === null ? null : (r.asked_modes as string[]);
    const sofar = asked.get(p) ?? new Set<string>();
    asked.set(p, sofar === "every" || modes === null ? "every" : new Set([...sofar, ...modes]));
  }
  const asks = (p: string, mode: string): boolean => {
    const a = asked.get(p);
    return a !== undefined && (a === "every" || a.has(mode));
  };
  const askers = [...byJudge.keys()].filter((p) => mastModeIds.some((m) => asks(p, m)));
  return { byJudge, traces: await readBy(askers), readBy, asks };
}

/**
 * Per agent or service: the traces of the group in scope that any of `producers` has a current
 * succeeded verdict on, the denominator of a grouped rate resting on them (an agent's group is the
 * traces it took part in, as its scored-trace denominator).
 */
export async function judgedTracesByGroup(
  database: Database,
  projectId: string,
  f: MetricsFilter,
  byAgent: boolean,
  producers: readonly string[],
): Promise<Map<string, number>> {
  if (producers.length === 0) return new Map();
  const mine = sql`v.producer_id = ANY(${sql.param([...producers])}::text[])`;
  const query = byAgent
    ? sql`SELECT au.agent AS g, count(DISTINCT v.trace_id)::int AS n
        FROM judge_current_verdicts v JOIN trace_agent_usage au ON au.project_id = v.project_id AND au.trace_id = v.trace_id
        WHERE ${windowWhere("v", projectId, f)} AND v.status = 'succeeded' AND ${productionTrace("v")} AND ${systemRunOf("v")} AND ${mine}
        ${f.agent === undefined ? sql`` : sql`AND au.agent = ${f.agent}`} GROUP BY 1`
    : sql`SELECT coalesce(v.service_name, '') AS g, count(DISTINCT v.trace_id)::int AS n FROM ${judgedVerdicts(projectId, f)} AND ${mine} GROUP BY 1`;
  const rows = rowsOf(await database.db.execute(query));
  return new Map(rows.map((r) => [String(r.g), num(r.n)]));
}

/**
 * Current succeeded verdicts in scope (alias v; a WHERE clause the caller may extend with AND). Baseline runs are
 * left out, as from the judge findings counted over them (rollups.ts systemRun): a baseline is not the system.
 */
function judgedVerdicts(projectId: string, f: MetricsFilter): SQL {
  return f.agent === undefined
    ? sql`judge_current_verdicts v WHERE ${windowWhere("v", projectId, f)} AND v.status = 'succeeded' AND ${productionTrace("v")} AND ${systemRunOf("v")}`
    : sql`judge_current_verdicts v JOIN trace_scores s ON s.project_id = v.project_id AND s.trace_id = v.trace_id
          WHERE ${windowWhere("v", projectId, f)} AND v.status = 'succeeded' AND NOT s.metrics_excluded AND NOT s.is_baseline AND ${traceScopeWhere("s", projectId, f)}`;
}

/** The trace of row `alias` is no baseline run. */
function systemRunOf(alias: string): SQL {
  const a = sql.raw(alias);
  return sql`NOT EXISTS (SELECT 1 FROM trace_scores b WHERE b.project_id = ${a}.project_id AND b.trace_id = ${a}.trace_id AND b.is_baseline)`;
}
