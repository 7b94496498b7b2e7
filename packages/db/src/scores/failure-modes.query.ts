/**
 * Failure-mode rates (docs/metrics.md §11): for a mode and a
 * scope, the share of scored traces in scope with at least one finding of the
 * mode, with numerator and denominator. With an agent filter, the scope is the
 * traces the agent took part in and the numerator counts the agent's findings.
 * Reads the hourly rollups (rollups.ts); the counts are those of the base rows.
 */
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { clampLimit, type MetricsFilter } from "./metrics-filter.ts";
import { agentScope, rollupRows } from "./rollup-source.ts";
import { agentRollup, findingRollup, traceRollup } from "./rollups.ts";
import { decodeCursor, encodeCursor, num } from "./sql-util.ts";

export const mastModeIds = [
  "FM-1.1",
  "FM-1.2",
  "FM-1.3",
  "FM-1.4",
  "FM-1.5",
  "FM-2.1",
  "FM-2.2",
  "FM-2.3",
  "FM-2.4",
  "FM-2.5",
  "FM-2.6",
  "FM-3.1",
  "FM-3.2",
  "FM-3.3",
] as const;
export const mastCategories = ["FC1", "FC2", "FC3"] as const;

export type FailureModeGroupBy = "mode" | "category" | "agent" | "service";

export interface FailureModeRate {
  /** The agent or service name when grouped by them; null otherwise (or a trace without service). */
  group: string | null;
  /** A mode id, or a category id when grouped by category. */
  mode: string;
  numerator: number;
  denominator: number;
  rate: number | null;
}

export interface FailureModesResult {
  scopeTraces: number;
  rates: FailureModeRate[];
  nextCursor: string | null;
  failed: { traces: number; modes: { mode: string; traces: number; share: number | null }[] };
  sources: { mode: string; source: string; findings: number; traces: number }[];
}

const rate = (n: number, d: number): number | null => (d === 0 ? null : n / d);

export async function failureModeMetrics(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { groupBy: FailureModeGroupBy; cursor?: string | undefined; limit?: number | undefined },
): Promise<FailureModesResult> {
  const db = database.db;
  const findings = rollupRows(findingRollup, projectId, filter);
  const inScope = agentScope("f", filter.agent);
  // Traces in scope: all scored traces, or (agent) the scored traces the agent took part in.
  const scopeSql =
    filter.agent === undefined
      ? sql`SELECT sum(t.traces)::int AS traces, sum(t.failed)::int AS failed FROM ${rollupRows(traceRollup, projectId, filter)} t`
      : sql`SELECT sum(a.scored_traces)::int AS traces, sum(a.failed_traces)::int AS failed FROM ${rollupRows(agentRollup, projectId, filter)} a WHERE a.agent = ${filter.agent}`;
  const [scopeResult, failedResult, sourceResult] = await Promise.all([
    db.execute(scopeSql),
    db.execute(sql`SELECT f.k1 AS mode, sum(f.failed_traces)::int AS traces FROM ${findings} f
      WHERE f.kind = 'mode' AND ${inScope} GROUP BY f.k1 HAVING sum(f.failed_traces) > 0 ORDER BY f.k1`),
    db.execute(sql`SELECT f.k1 AS mode, f.k2 AS source, sum(f.findings)::int AS findings, sum(f.traces)::int AS traces
      FROM ${findings} f WHERE f.kind = 'source' AND ${inScope} GROUP BY f.k1, f.k2 HAVING sum(f.findings) > 0 ORDER BY f.k1, f.k2`),
  ]);
  const scopeRow = rowsOf(scopeResult)[0];
  const scopeTraces = num(scopeRow?.traces);
  const failedTraces = num(scopeRow?.failed);

  const [rates, nextCursor] = await groupedRates(database, projectId, filter, opts, scopeTraces);
  return {
    scopeTraces,
    rates,
    nextCursor,
    failed: {
      traces: failedTraces,
      modes: rowsOf(failedResult).map((r) => ({ mode: String(r.mode), traces: num(r.traces), share: rate(num(r.traces), failedTraces) })),
    },
    sources: rowsOf(sourceResult).map((r) => ({ mode: String(r.mode), source: String(r.source), findings: num(r.findings), traces: num(r.traces) })),
  };
}

async function groupedRates(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { groupBy: FailureModeGroupBy; cursor?: string | undefined; limit?: number | undefined },
  scopeTraces: number,
): Promise<[FailureModeRate[], string | null]> {
  const db = database.db;
  const findings = rollupRows(findingRollup, projectId, filter);
  const inScope = agentScope("f", filter.agent);
  if (opts.groupBy === "mode" || opts.groupBy === "category") {
    const byCategory = opts.groupBy === "category";
    // Every mode / category with at least one finding in scope is listed, even at 0 traces.
    const rows = rowsOf(
      await db.execute(sql`SELECT f.k1 AS k, sum(f.traces)::int AS n FROM ${findings} f
        WHERE f.kind = ${byCategory ? "category" : "mode"} AND ${inScope} GROUP BY f.k1 HAVING sum(f.findings) > 0`),
    );
    const counts = new Map(rows.map((r) => [String(r.k), num(r.n)]));
    const keys: string[] = [...(byCategory ? mastCategories : mastModeIds)];
    for (const k of counts.keys()) if (!keys.includes(k)) keys.push(k);
    return [
      keys.map((k) => ({ group: null, mode: k, numerator: counts.get(k) ?? 0, denominator: scopeTraces, rate: rate(counts.get(k) ?? 0, scopeTraces) })),
      null,
    ];
  }

  // Grouped by agent or service: one row per (group, mode) with at least one finding, keyset-paginated.
  const limit = clampLimit(opts.limit);
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, 2);
  const byAgent = opts.groupBy === "agent";
  const onlyAgent = (alias: string) => (filter.agent === undefined ? sql`true` : sql`${sql.raw(alias)}.agent = ${filter.agent}`);
  const agents = rollupRows(agentRollup, projectId, filter);
  const denominators = byAgent
    ? sql`SELECT a.agent AS g, sum(a.usage_rows)::int AS d FROM ${agents} a WHERE ${onlyAgent("a")} GROUP BY a.agent`
    : filter.agent === undefined
      ? sql`SELECT coalesce(t.service_name, '') AS g, sum(t.traces)::int AS d FROM ${rollupRows(traceRollup, projectId, filter)} t GROUP BY 1`
      : sql`SELECT coalesce(a.service_name, '') AS g, sum(a.scored_traces)::int AS d FROM ${agents} a WHERE a.agent = ${filter.agent} GROUP BY 1`;
  const numerators = byAgent
    ? sql`SELECT f.agent AS g, f.k1 AS mode, sum(f.traces)::int AS n FROM ${findings} f
        WHERE f.kind = 'mode' AND f.agent IS NOT NULL AND ${onlyAgent("f")} GROUP BY f.agent, f.k1 HAVING sum(f.traces) > 0`
    : sql`SELECT coalesce(f.service_name, '') AS g, f.k1 AS mode, sum(f.traces)::int AS n FROM ${findings} f
        WHERE f.kind = 'mode' AND ${inScope} GROUP BY 1, 2 HAVING sum(f.traces) > 0`;
  const rows = rowsOf(
    await db.execute(sql`WITH d AS (${denominators}), n AS (${numerators})
      SELECT n.g, n.mode, n.n, coalesce(d.d, 0) AS d FROM n LEFT JOIN d ON d.g = n.g
      ${after === null ? sql`` : sql`WHERE (n.g, n.mode) > (${String(after[0])}, ${String(after[1])})`}
      ORDER BY n.g, n.mode LIMIT ${limit + 1}`),
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit && last ? encodeCursor([String(last.g), String(last.mode)]) : null;
  return [
    page.map((r) => {
      const g = String(r.g);
      return { group: byAgent ? g : g === "" ? null : g, mode: String(r.mode), numerator: num(r.n), denominator: num(r.d), rate: rate(num(r.n), num(r.d)) };
    }),
    nextCursor,
  ];
}
