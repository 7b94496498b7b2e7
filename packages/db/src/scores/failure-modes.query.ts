/**
 * Failure-mode rates (metrics.md "Per window and scope"): for a mode and a
 * scope, the share of scored traces in scope with at least one finding of the
 * mode, with numerator and denominator. With an agent filter, the scope is the
 * traces the agent took part in and the numerator counts the agent's findings.
 */
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { agentRowsWhere, clampLimit, traceScopeWhere, type MetricsFilter } from "./metrics-filter.ts";
import { decodeCursor, encodeCursor, num } from "./sql-util.ts";

export const mastModeIds = [
  "FM-1.1", "FM-1.2", "FM-1.3", "FM-1.4", "FM-1.5",
  "FM-2.1", "FM-2.2", "FM-2.3", "FM-2.4", "FM-2.5", "FM-2.6",
  "FM-3.1", "FM-3.2", "FM-3.3",
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
  const scope = traceScopeWhere("s", projectId, filter);
  const findings = agentRowsWhere("f", projectId, filter);
  const [scopeRow] = rowsOf(
    await db.execute(sql`SELECT count(*)::int AS traces, count(*) FILTER (WHERE s.success = false)::int AS failed FROM trace_scores s WHERE ${scope}`),
  );
  const scopeTraces = num(scopeRow?.traces);
  const failedTraces = num(scopeRow?.failed);

  const [rates, nextCursor] = await groupedRates(database, projectId, filter, opts, scopeTraces);

  const failedRows = rowsOf(
    await db.execute(sql`SELECT f.mode, count(*)::int AS traces FROM trace_findings f
      WHERE ${findings} AND f.success = false AND ${filter.agent === undefined ? sql`f.first_of_mode` : sql`f.first_of_agent_mode`}
      GROUP BY f.mode ORDER BY f.mode`),
  );
  const sourceRows = rowsOf(
    await db.execute(sql`SELECT f.mode, f.source, count(*)::int AS findings, count(DISTINCT f.trace_id)::int AS traces
      FROM trace_findings f WHERE ${findings} GROUP BY f.mode, f.source ORDER BY f.mode, f.source`),
  );
  return {
    scopeTraces,
    rates,
    nextCursor,
    failed: {
      traces: failedTraces,
      modes: failedRows.map((r) => ({ mode: String(r.mode), traces: num(r.traces), share: rate(num(r.traces), failedTraces) })),
    },
    sources: sourceRows.map((r) => ({ mode: String(r.mode), source: String(r.source), findings: num(r.findings), traces: num(r.traces) })),
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
  const findings = agentRowsWhere("f", projectId, filter);
  const firstFlag = filter.agent === undefined ? sql`f.first_of_mode` : sql`f.first_of_agent_mode`;
  if (opts.groupBy === "mode" || opts.groupBy === "category") {
    const byCategory = opts.groupBy === "category";
    // With an agent filter a category count must still be per trace: count distinct traces then.
    const counted = byCategory
      ? filter.agent === undefined
        ? sql`count(*) FILTER (WHERE f.first_of_category)`
        : sql`count(DISTINCT f.trace_id)`
      : sql`count(*) FILTER (WHERE ${firstFlag})`;
    const key = byCategory ? sql`f.category` : sql`f.mode`;
    const rows = rowsOf(await db.execute(sql`SELECT ${key} AS k, ${counted}::int AS n FROM trace_findings f WHERE ${findings} GROUP BY 1`));
    const counts = new Map(rows.map((r) => [String(r.k), num(r.n)]));
    const keys: string[] = [...(byCategory ? mastCategories : mastModeIds)];
    for (const k of counts.keys()) if (!keys.includes(k)) keys.push(k);
    return [keys.map((k) => ({ group: null, mode: k, numerator: counts.get(k) ?? 0, denominator: scopeTraces, rate: rate(counts.get(k) ?? 0, scopeTraces) })), null];
  }

  // Grouped by agent or service: one row per (group, mode) with at least one finding, keyset-paginated.
  const limit = clampLimit(opts.limit);
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, 2);
  const byAgent = opts.groupBy === "agent";
  const denominators = byAgent
    ? sql`SELECT a.agent AS g, count(*)::int AS d FROM trace_agent_usage a WHERE ${agentRowsWhere("a", projectId, filter)} GROUP BY a.agent`
    : sql`SELECT coalesce(s.service_name, '') AS g, count(*)::int AS d FROM trace_scores s WHERE ${traceScopeWhere("s", projectId, filter)} GROUP BY 1`;
  const numerators = byAgent
    ? sql`SELECT f.agent AS g, f.mode, count(*)::int AS n FROM trace_findings f WHERE ${findings} AND f.first_of_agent_mode GROUP BY f.agent, f.mode`
    : sql`SELECT coalesce(f.service_name, '') AS g, f.mode, count(*)::int AS n FROM trace_findings f WHERE ${findings} AND ${firstFlag} GROUP BY 1, 2`;
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
