/**
 * Failure-mode rates (docs/metrics.md §11): for a mode and a
 * scope, the share of scored traces in scope with at least one finding of the
 * mode, with numerator and denominator. With an agent filter, the scope is the
 * traces the agent took part in and the numerator counts the agent's findings.
 * Reads the hourly rollups (rollups.ts); the counts are those of the base rows.
 * Each mode also says whether anything measures it (the detector list and the
 * project's current configuration): an unmeasured mode's rate is null, never 0.
 */
import {
  categoryOf,
  configuredNeeds,
  ratioOrNull,
  mastCategories,
  mastDetectors,
  mastModeIds,
  modeCoverage,
  type ConfigNeed,
  type ModeCoverage,
} from "@crux/core";
import { eq, sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { agentContracts, handoffContracts, milestoneSets } from "../schema.ts";
import { clampLimit, type MetricsFilter } from "./metrics-filter.ts";
import { agentScope, rollupRows } from "./rollup-source.ts";
import { agentRollup, findingRollup, traceRollup } from "./rollups.ts";
import { scopedContracts } from "./scoring-config.ts";
import { decodeCursor, encodeCursor, num } from "./sql-util.ts";

export type FailureModeGroupBy = "mode" | "category" | "agent" | "service";

/** Whether anything measures a mode (or category) in scope (docs/metrics.md §11). */
export interface Measurement {
  /** False: nothing could have found it, so its rate is unknown (null), not 0. */
  measured: boolean;
  /** Ids of the detectors that measure it (packages/core/src/scorers/detectors.ts). */
  detectors: string[];
  /** What is not measured and why; null when fully measured under the current configuration. */
  reason: string | null;
}

export interface FailureModeRate extends Measurement {
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
  /** Every mode of the taxonomy, whatever the grouping. */
  coverage: Array<Measurement & { mode: string }>;
  rates: FailureModeRate[];
  nextCursor: string | null;
  failed: { traces: number; modes: { mode: string; traces: number; share: number | null }[] };
  sources: { mode: string; source: string; findings: number; traces: number }[];
}

/**
 * What measures each mode for traces in scope, from the current configuration: with a service filter,
 * what a trace of that service is scored with; without, any service's (a mode measured on some of
 * the services counts as measured).
 */
async function configuredCoverage(database: Database, projectId: string, service: string | undefined): Promise<ModeCoverage[]> {
  const db = database.db;
  const [agentRows, handoffRows, milestoneRows] = await Promise.all([
    db.select().from(agentContracts).where(eq(agentContracts.projectId, projectId)),
    db.select().from(handoffContracts).where(eq(handoffContracts.projectId, projectId)),
    db.select().from(milestoneSets).where(eq(milestoneSets.projectId, projectId)),
  ]);
  const rows = { agentRows, handoffRows, milestoneRows };
  const services =
    service !== undefined
      ? [service]
      : [null, ...new Set([...agentRows, ...handoffRows, ...milestoneRows].flatMap((r) => (r.serviceName === null ? [] : [r.serviceName])))];
  const configured = new Set<ConfigNeed>();
  for (const name of services) {
    const c = scopedContracts(rows, name);
    for (const need of configuredNeeds({
      agentContracts: c.agentContracts,
      handoffContracts: c.handoffContracts,
      milestones: c.milestoneSet?.milestones ?? null,
    })) {
      configured.add(need);
    }
  }
  return modeCoverage(configured, service === undefined ? "this project" : `service "${service}"`);
}

/** A mode found in scope was measured when those traces were scored, whatever the configuration says now. */
function measurementOf(coverage: Map<string, ModeCoverage>, mode: string, tracesWithFinding: number): Measurement {
  const c = coverage.get(mode);
  if (c?.measured === true) return { measured: true, detectors: c.detectors, reason: null };
  if (tracesWithFinding === 0) return { measured: false, detectors: [], reason: c?.reason ?? "not a mode of the taxonomy" };
  return {
    measured: true,
    detectors: mastDetectors.filter((d) => d.modes.some((m) => m.mode === mode)).map((d) => d.id),
    reason: `found in scope, but nothing measures it under the current configuration (${c?.reason ?? "not a mode of the taxonomy"})`,
  };
}

/** A category is measured when one of its modes is; the reason names the modes that are not. */
function categoryMeasurement(modes: Map<string, Measurement>, category: string, tracesWithFinding: number): Measurement {
  const own = mastModeIds.filter((m) => categoryOf(m) === category).map((m) => ({ mode: m, ...(modes.get(m) as Measurement) }));
  const unmeasured = own.filter((m) => !m.measured).map((m) => m.mode);
  const measured = unmeasured.length < own.length || tracesWithFinding > 0;
  return {
    measured,
    detectors: [...new Set(own.flatMap((m) => m.detectors))],
    reason: unmeasured.length === 0 ? null : measured ? `not measured: ${unmeasured.join(", ")}` : `no mode of ${category} is measured`,
  };
}

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
  const [scopeResult, failedResult, sourceResult, modeCounts, configured] = await Promise.all([
    db.execute(scopeSql),
    db.execute(sql`SELECT f.k1 AS mode, sum(f.failed_traces)::int AS traces FROM ${findings} f
      WHERE f.kind = 'mode' AND ${inScope} GROUP BY f.k1 HAVING sum(f.failed_traces) > 0 ORDER BY f.k1`),
    db.execute(sql`SELECT f.k1 AS mode, f.k2 AS source, sum(f.findings)::int AS findings, sum(f.traces)::int AS traces
      FROM ${findings} f WHERE f.kind = 'source' AND ${inScope} GROUP BY f.k1, f.k2 HAVING sum(f.findings) > 0 ORDER BY f.k1, f.k2`),
    tracesWithFinding(database, findings, inScope, "mode"),
    configuredCoverage(database, projectId, filter.service),
  ]);
  const scopeRow = rowsOf(scopeResult)[0];
  const scopeTraces = num(scopeRow?.traces);
  const failedTraces = num(scopeRow?.failed);

  const coverageByMode = new Map<string, ModeCoverage>(configured.map((c) => [c.mode, c]));
  const modes: string[] = [...mastModeIds];
  for (const k of modeCounts.keys()) if (!modes.includes(k)) modes.push(k);
  const measurements = new Map(modes.map((m) => [m, measurementOf(coverageByMode, m, modeCounts.get(m) ?? 0)]));

  const [rates, nextCursor] = await groupedRates(database, projectId, filter, opts, { scopeTraces, modeCounts, measurements });
  return {
    scopeTraces,
    coverage: modes.map((mode) => ({ mode, ...(measurements.get(mode) as Measurement) })),
    rates,
    nextCursor,
    failed: {
      traces: failedTraces,
      modes: rowsOf(failedResult).map((r) => ({ mode: String(r.mode), traces: num(r.traces), share: ratioOrNull(num(r.traces), failedTraces) })),
    },
    sources: rowsOf(sourceResult).map((r) => ({ mode: String(r.mode), source: String(r.source), findings: num(r.findings), traces: num(r.traces) })),
  };
}

/** Per mode (or category): traces in scope with at least one finding, for keys with at least one finding. */
async function tracesWithFinding(database: Database, findings: SQL, inScope: SQL, kind: "mode" | "category"): Promise<Map<string, number>> {
  const rows = rowsOf(
    await database.db.execute(sql`SELECT f.k1 AS k, sum(f.traces)::int AS n FROM ${findings} f
      WHERE f.kind = ${kind} AND ${inScope} GROUP BY f.k1 HAVING sum(f.findings) > 0`),
  );
  return new Map(rows.map((r) => [String(r.k), num(r.n)]));
}

async function groupedRates(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { groupBy: FailureModeGroupBy; cursor?: string | undefined; limit?: number | undefined },
  scope: { scopeTraces: number; modeCounts: Map<string, number>; measurements: Map<string, Measurement> },
): Promise<[FailureModeRate[], string | null]> {
  const db = database.db;
  const findings = rollupRows(findingRollup, projectId, filter);
  const inScope = agentScope("f", filter.agent);
  const { scopeTraces, measurements } = scope;
  // Every mode / category is listed, even at 0 traces; one that nothing measures has rate null, never 0.
  const row = (mode: string, n: number, m: Measurement): FailureModeRate => ({
    group: null,
    mode,
    numerator: n,
    denominator: scopeTraces,
    rate: m.measured ? ratioOrNull(n, scopeTraces) : null,
    ...m,
  });
  if (opts.groupBy === "mode") {
    return [[...measurements].map(([mode, m]) => row(mode, scope.modeCounts.get(mode) ?? 0, m)), null];
  }
  if (opts.groupBy === "category") {
    const counts = await tracesWithFinding(database, findings, inScope, "category");
    const keys: string[] = [...mastCategories];
    for (const k of counts.keys()) if (!keys.includes(k)) keys.push(k);
    return [keys.map((k) => row(k, counts.get(k) ?? 0, categoryMeasurement(measurements, k, counts.get(k) ?? 0))), null];
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
      const mode = String(r.mode);
      // Each pair has a finding, so its mode is measured.
      const m = measurements.get(mode) ?? measurementOf(new Map(), mode, num(r.n));
      return { group: byAgent ? g : g === "" ? null : g, mode, numerator: num(r.n), denominator: num(r.d), rate: ratioOrNull(num(r.n), num(r.d)), ...m };
    }),
    nextCursor,
  ];
}
