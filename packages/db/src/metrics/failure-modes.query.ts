/**
 * Failure-mode rates (docs/metrics.md §11): for a mode and a
 * scope, the share of scored traces in scope with at least one finding of the
 * mode, with numerator and denominator. With an agent filter, the scope is the
 * traces the agent took part in and the numerator counts the agent's findings.
 * Reads the hourly rollups (rollups/rollups.ts); the counts are those of the base rows.
 * Each mode also says whether anything measures it (the detector list and the
 * project's current configuration): an unmeasured mode's rate is null, never 0.
 * With source judge or all, the judges' current findings count too (judge-rates.ts): a trace has
 * a mode when a code finding or a judge finding has it, and a rate that counts a judge not
 * validated for the mode against human labels (validation.query.ts) says so.
 */
import {
  defaultValidationBar,
  type ValidationBar,
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
import { inReadSnapshot, rowsOf, type Database } from "../client.ts";
import { agentContracts, handoffContracts, milestoneSets } from "../schema/config.ts";
import { type MetricsFilter } from "./filter.ts";
import { agentScope, rollupRows } from "./rollup-source.ts";
import { agentRollup, findingRollup, traceRollup } from "../rollups/rollups.ts";
import {
  judgeCountsBy,
  judgedTraces,
  judgedTracesByGroup,
  judgeCells,
  judgeGroupNumerators,
  judgeSources,
  type FindingSourceFilter,
  type JudgeKeyCounts,
} from "./judge-rates.ts";
import { scopedContracts } from "../config/scoring-config.ts";
import { judgeValidationIndex } from "./validation.query.ts";
import { clampLimit, decodeCursor, encodeCursor, num } from "../sql/util.ts";

/** The category of a taxonomy mode; null for an id outside it (a finding stored by a newer detector list). */
function categoryOfMode(mode: string): string | null {
  return (mastModeIds as readonly string[]).includes(mode) ? categoryOf(mode as (typeof mastModeIds)[number]) : null;
}

export type FailureModeGroupBy = "mode" | "category" | "agent" | "service";

/** Whether anything measures a mode (or category) in scope (docs/metrics.md §11). */
export interface Measurement {
  /** False: nothing could have found it, so its rate is unknown (null), not 0. */
  measured: boolean;
  /** Ids of the detectors that measure it (packages/core/src/mast/registry.ts). */
  detectors: string[];
  /** What is not measured and why; null when fully measured under the current configuration. */
  reason: string | null;
}

/** Whether the judges counted in a rate agree with human labels on the mode (docs/metrics.md §12). */
interface RateValidation {
  /** False when a judge whose findings count in the rate is not validated for the mode. */
  validated: boolean;
  validationReason: string | null;
}

export interface FailureModeRate extends Measurement, RateValidation {
  /** The agent or service name when grouped by them; null otherwise (or a trace without service). */
  group: string | null;
  /** A mode id; when grouped by category, the category id again (kept for clients written before `category`). */
  mode: string;
  /** The mode's category (FC1..FC3); when grouped by category, the row's category. */
  category: string | null;
  numerator: number;
  denominator: number;
  rate: number | null;
}

export interface FailureModesResult {
  source: FindingSourceFilter;
  /** Scored runs of the system in scope (baseline runs are not the system's). */
  scopeTraces: number;
  /** Baseline runs in the window and service: reported beside, counted in no rate. */
  baselineRuns: number;
  /** Scored traces in scope that a mode-asking judge has a current verdict on (judges see a sample). */
  judgedTraces: number;
  /** Every mode of the taxonomy, whatever the grouping. */
  coverage: Array<Measurement & { mode: string }>;
  rates: FailureModeRate[];
  nextCursor: string | null;
  failed: { traces: number; modes: { mode: string; traces: number; share: number | null }[] };
  sources: { mode: string; source: string; findings: number; traces: number; validated: boolean | null; validationReason: string | null }[];
}

export interface FailureModeOptions {
  groupBy: FailureModeGroupBy;
  cursor?: string | undefined;
  limit?: number | undefined;
  /** Default all. */
  source?: FindingSourceFilter | undefined;
  /** Kappa bar and minimum labels a judge needs on a mode (default .6 and 20). */
  validationBar?: ValidationBar | undefined;
}

/** Judge coverage of the scope: which judges saw traces, and who counts for a mode under a source. */
interface JudgeScope {
  source: FindingSourceFilter;
  judged: Map<string, number>;
  /** Whether a judge's verdicts in scope asked about a mode. */
  asks: (producerId: string, mode: string) => boolean;
  counts: Map<string, JudgeKeyCounts>;
  validation: (mode: string, producerId: string) => { validated: boolean; reason: string };
  /** Whether code measures the mode in scope (then it reads every scored trace). */
  codeMeasures: (mode: string) => boolean;
}

/**
 * A rate rests on the judges when only they measure it: source judge, or source all on a mode no
 * code detector measures. It is validated only when they are, and counted over the traces they read.
 */
function restsOnJudges(j: JudgeScope, mode: string): boolean {
  return j.source === "judge" || (j.source === "all" && !j.codeMeasures(mode) && measuringJudges(j, mode).length > 0);
}

/** The judges that measure a mode in scope: they ask about it and judged a trace in scope. */
function measuringJudges(j: JudgeScope, mode: string): string[] {
  return [...j.judged.keys()].filter((p) => (j.judged.get(p) ?? 0) > 0 && j.asks(p, mode)).sort();
}

/** Measured under the source filter: code's measurement, the judges', or either. */
function sourcedMeasurement(code: Measurement, j: JudgeScope, mode: string): Measurement {
  if (j.source === "code") return code;
  const judges = measuringJudges(j, mode);
  const judge: Measurement =
    judges.length > 0
      ? { measured: true, detectors: judges, reason: null }
      : { measured: false, detectors: [], reason: "no judge verdict in scope asks about it" };
  if (j.source === "judge") return judge;
  if (code.measured) return { ...code, detectors: [...code.detectors, ...judges] };
  return judge.measured ? { measured: true, detectors: judges, reason: `measured by judges only; code: ${code.reason ?? "not measured"}` } : code;
}

/**
 * A rate counting judges (it rests on them, or source all with judge findings of the mode) is
 * validated when each of them is: a judge-only rate of 0 is no more validated than one of 0.5.
 */
function rateValidation(j: JudgeScope, mode: string): RateValidation {
  if (j.source === "code") return { validated: true, validationReason: null };
  const counted = restsOnJudges(j, mode) || (j.counts.get(mode)?.traces ?? 0) > 0 ? measuringJudges(j, mode) : [];
  const failing = counted.map((p) => j.validation(mode, p)).filter((v) => !v.validated);
  return failing.length === 0 ? { validated: true, validationReason: null } : { validated: false, validationReason: failing.map((v) => v.reason).join("; ") };
}

/** Code count, judge count, or code plus the traces only a judge found, per the source filter. */
function sourcedCount(source: FindingSourceFilter, code: number, judge: JudgeKeyCounts | undefined, failed = false): number {
  const j = judge ?? { traces: 0, extra: 0, failed: 0, extraFailed: 0 };
  if (source === "code") return code;
  if (source === "judge") return failed ? j.failed : j.traces;
  return code + (failed ? j.extraFailed : j.extra);
}

/**
 * What measures each mode for traces in scope, from the current configuration: with a service filter,
 * what a trace of that service is scored with; without, any service's (a mode measured on some of
 * the services counts as measured).
 */
export async function configuredCoverage(database: Database, projectId: string, service: string | undefined): Promise<ModeCoverage[]> {
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

/** A category's rate is validated when each of its modes' is. */
function categoryValidation(j: JudgeScope, category: string): RateValidation {
  const reasons = mastModeIds
    .filter((m) => categoryOf(m) === category)
    .map((m) => rateValidation(j, m))
    .filter((v) => !v.validated)
    .map((v) => v.validationReason);
  return reasons.length === 0 ? { validated: true, validationReason: null } : { validated: false, validationReason: reasons.join("; ") };
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

/** GET /metrics/failure-modes over one snapshot (its counts come from several queries). */
export async function failureModeMetrics(database: Database, projectId: string, filter: MetricsFilter, opts: FailureModeOptions): Promise<FailureModesResult> {
  return inReadSnapshot(database, (snapshot) => failureModeMetricsIn(snapshot, projectId, filter, opts));
}

async function failureModeMetricsIn(database: Database, projectId: string, filter: MetricsFilter, opts: FailureModeOptions): Promise<FailureModesResult> {
  const source = opts.source ?? "all";
  const db = database.db;
  const findings = rollupRows(findingRollup, projectId, filter);
  const inScope = agentScope("f", filter.agent);
  // Traces in scope: all scored traces, or (agent) the scored traces the agent took part in.
  const scopeSql =
    filter.agent === undefined
      ? sql`SELECT sum(t.traces)::int AS traces, sum(t.failed)::int AS failed, sum(t.baseline_runs)::int AS baseline_runs FROM ${rollupRows(traceRollup, projectId, filter)} t`
      : sql`SELECT sum(a.scored_traces)::int AS traces, sum(a.failed_traces)::int AS failed,
          (SELECT sum(t.baseline_runs)::int FROM ${rollupRows(traceRollup, projectId, filter)} t) AS baseline_runs
          FROM ${rollupRows(agentRollup, projectId, filter)} a WHERE a.agent = ${filter.agent}`;
  const facts = judgeCells(projectId, filter);
  const noJudge = source === "code";
  const [scopeResult, failedResult, sourceResult, codeModeCounts, configured, judged, judgeModeCounts, judgeSourceRows] = await Promise.all([
    db.execute(scopeSql),
    db.execute(sql`SELECT f.k1 AS mode, sum(f.failed_traces)::int AS traces FROM ${findings} f
      WHERE f.kind = 'mode' AND ${inScope} GROUP BY f.k1 HAVING sum(f.failed_traces) > 0 ORDER BY f.k1`),
    db.execute(sql`SELECT f.k1 AS mode, f.k2 AS source, sum(f.findings)::int AS findings, sum(f.traces)::int AS traces
      FROM ${findings} f WHERE f.kind = 'source' AND ${inScope} GROUP BY f.k1, f.k2 HAVING sum(f.findings) > 0 ORDER BY f.k1, f.k2`),
    tracesWithFinding(database, findings, inScope, "mode"),
    configuredCoverage(database, projectId, filter.service),
    judgedTraces(database, projectId, filter),
    noJudge ? new Map<string, JudgeKeyCounts>() : judgeCountsBy(database, facts, "mode"),
    noJudge ? [] : judgeSources(database, facts),
  ]);
  // Labels are few; validation is read only when a judge is in scope (over every label of the scope's service).
  const anyJudge = judged.byJudge.size > 0 || judgeSourceRows.length > 0;
  const validation =
    anyJudge && source !== "code"
      ? await judgeValidationIndex(database, projectId, { service: filter.service }, opts.validationBar ?? defaultValidationBar)
      : () => ({ validated: false, reason: "" });
  const scopeRow = rowsOf(scopeResult)[0];
  const scopeTraces = num(scopeRow?.traces);
  const failedTraces = num(scopeRow?.failed);

  const coverageByMode = new Map<string, ModeCoverage>(configured.map((c) => [c.mode, c]));
  const modes: string[] = [...mastModeIds];
  for (const k of [...codeModeCounts.keys(), ...judgeModeCounts.keys()]) if (!modes.includes(k)) modes.push(k);
  const codeMeasurements = new Map(modes.map((m) => [m, measurementOf(coverageByMode, m, codeModeCounts.get(m) ?? 0)] as const));
  const judgeScope: JudgeScope = {
    source,
    judged: judged.byJudge,
    asks: judged.asks,
    counts: judgeModeCounts,
    validation,
    codeMeasures: (mode) => codeMeasurements.get(mode)?.measured ?? false,
  };
  const modeCounts = new Map(modes.map((m) => [m, sourcedCount(source, codeModeCounts.get(m) ?? 0, judgeModeCounts.get(m))]));
  const measurements = new Map(modes.map((m) => [m, sourcedMeasurement(codeMeasurements.get(m)!, judgeScope, m)] as const));
  // A rate resting on judges is counted over the traces they read (judges see a sample), not every scored trace.
  const denominatorOf = async (keyModes: readonly string[]): Promise<number> => {
    if (!keyModes.every((m) => restsOnJudges(judgeScope, m) || !(measurements.get(m)?.measured ?? false))) return scopeTraces;
    const judges = [...new Set(keyModes.flatMap((m) => measuringJudges(judgeScope, m)))].sort();
    return judges.length === 0 ? scopeTraces : judged.readBy(judges);
  };

  const [rates, nextCursor] = await groupedRates(database, projectId, filter, opts, {
    scopeTraces,
    modeCounts,
    measurements,
    judgeScope,
    facts,
    denominatorOf,
  });
  const codeFailed = new Map(rowsOf(failedResult).map((r) => [String(r.mode), num(r.traces)]));
  const failedModes = modes
    .map((mode) => ({ mode, traces: sourcedCount(source, codeFailed.get(mode) ?? 0, judgeModeCounts.get(mode), true) }))
    .filter((m) => m.traces > 0);
  const codeSources =
    source === "judge"
      ? []
      : rowsOf(sourceResult).map((r) => ({
          mode: String(r.mode),
          source: String(r.source),
          findings: num(r.findings),
          traces: num(r.traces),
          validated: null,
          validationReason: null,
        }));
  const judgeSourceList =
    source === "code"
      ? []
      : judgeSourceRows.map((r) => {
          const v = validation(r.mode, r.source);
          return { ...r, validated: v.validated, validationReason: v.validated ? null : v.reason };
        });
  return {
    source,
    scopeTraces,
    baselineRuns: num(scopeRow?.baseline_runs),
    judgedTraces: judged.traces,
    coverage: modes.map((mode) => ({ mode, ...(measurements.get(mode) as Measurement) })),
    rates,
    nextCursor,
    failed: { traces: failedTraces, modes: failedModes.map((m) => ({ ...m, share: ratioOrNull(m.traces, failedTraces) })) },
    sources: [...codeSources, ...judgeSourceList].sort((a, b) =>
      a.mode < b.mode ? -1 : a.mode > b.mode ? 1 : a.source < b.source ? -1 : a.source > b.source ? 1 : 0,
    ),
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
  opts: FailureModeOptions,
  scope: {
    scopeTraces: number;
    modeCounts: Map<string, number>;
    measurements: Map<string, Measurement>;
    judgeScope: JudgeScope;
    facts: { cells: SQL; inScope: SQL };
    /** The denominator of a rate over these modes (a mode, or a category's). */
    denominatorOf: (modes: readonly string[]) => Promise<number>;
  },
): Promise<[FailureModeRate[], string | null]> {
  const db = database.db;
  const findings = rollupRows(findingRollup, projectId, filter);
  const inScope = agentScope("f", filter.agent);
  const { measurements, judgeScope } = scope;
  const source = judgeScope.source;
  // Every mode / category is listed, even at 0 traces; one that nothing measures has rate null, never 0.
  const row = (mode: string, category: string | null, n: number, d: number, m: Measurement, v: RateValidation): FailureModeRate => ({
    group: null,
    mode,
    category,
    numerator: n,
    denominator: d,
    rate: m.measured ? ratioOrNull(n, d) : null,
    ...m,
    ...v,
  });
  if (opts.groupBy === "mode") {
    const rows: FailureModeRate[] = [];
    for (const [mode, m] of measurements) {
      rows.push(row(mode, categoryOfMode(mode), scope.modeCounts.get(mode) ?? 0, await scope.denominatorOf([mode]), m, rateValidation(judgeScope, mode)));
    }
    return [rows, null];
  }
  if (opts.groupBy === "category") {
    const [codeCounts, judgeCounts] = await Promise.all([
      tracesWithFinding(database, findings, inScope, "category"),
      source === "code" ? new Map<string, JudgeKeyCounts>() : judgeCountsBy(database, scope.facts, "category"),
    ]);
    const keys: string[] = [...mastCategories];
    for (const k of [...codeCounts.keys(), ...judgeCounts.keys()]) if (!keys.includes(k)) keys.push(k);
    const rows: FailureModeRate[] = [];
    for (const k of keys) {
      const n = sourcedCount(source, codeCounts.get(k) ?? 0, judgeCounts.get(k));
      const own = mastModeIds.filter((m) => categoryOf(m) === k);
      rows.push(
        row(k, k, n, await scope.denominatorOf(own.length > 0 ? own : [k]), categoryMeasurement(measurements, k, n), categoryValidation(judgeScope, k)),
      );
    }
    return [rows, null];
  }

  // Grouped by agent or service: one row per (group, mode) with at least one finding, keyset-paginated.
  const limit = clampLimit(opts.limit);
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, 2);
  // [group, mode], as encoded below: the mode is a MAST mode id.
  if (after !== null && (typeof after[0] !== "string" || typeof after[1] !== "string" || !/^FM-\d\.\d{1,2}$/.test(after[1]))) decodeCursor("", 2);
  const byAgent = opts.groupBy === "agent";
  const onlyAgent = (alias: string) => (filter.agent === undefined ? sql`true` : sql`${sql.raw(alias)}.agent = ${filter.agent}`);
  const agents = rollupRows(agentRollup, projectId, filter);
  const denominators = byAgent
    ? sql`SELECT a.agent AS g, sum(a.usage_rows)::int AS d FROM ${agents} a WHERE ${onlyAgent("a")} GROUP BY a.agent`
    : filter.agent === undefined
      ? sql`SELECT coalesce(t.service_name, '') AS g, sum(t.traces)::int AS d FROM ${rollupRows(traceRollup, projectId, filter)} t GROUP BY 1`
      : sql`SELECT coalesce(a.service_name, '') AS g, sum(a.scored_traces)::int AS d FROM ${agents} a WHERE a.agent = ${filter.agent} GROUP BY 1`;
  const codeNumerators = byAgent
    ? sql`SELECT f.agent AS g, f.k1 AS mode, sum(f.traces)::int AS n FROM ${findings} f
        WHERE f.kind = 'mode' AND f.agent IS NOT NULL AND ${onlyAgent("f")} GROUP BY f.agent, f.k1 HAVING sum(f.traces) > 0`
    : sql`SELECT coalesce(f.service_name, '') AS g, f.k1 AS mode, sum(f.traces)::int AS n FROM ${findings} f
        WHERE f.kind = 'mode' AND ${inScope} GROUP BY 1, 2 HAVING sum(f.traces) > 0`;
  const numerators =
    source === "code"
      ? codeNumerators
      : source === "judge"
        ? judgeGroupNumerators(scope.facts, byAgent, false, filter.agent)
        : sql`SELECT x.g, x.mode, sum(x.n)::int AS n FROM (${codeNumerators} UNION ALL ${judgeGroupNumerators(scope.facts, byAgent, true, filter.agent)}) x
            GROUP BY x.g, x.mode HAVING sum(x.n) > 0`;
  const rows = rowsOf(
    await db.execute(sql`WITH d AS (${denominators}), n AS (${numerators})
      SELECT n.g, n.mode, n.n, coalesce(d.d, 0) AS d FROM n LEFT JOIN d ON d.g = n.g
      ${after === null ? sql`` : sql`WHERE (n.g, n.mode) > (${String(after[0])}, ${String(after[1])})`}
      ORDER BY n.g, n.mode LIMIT ${limit + 1}`),
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit && last ? encodeCursor([String(last.g), String(last.mode)]) : null;
  // As by mode: a rate resting on judges is counted over the group's traces those judges read.
  const readByGroup = new Map<string, Promise<Map<string, number>>>();
  const judgeDenominator = async (g: string, mode: string): Promise<number | null> => {
    if (!restsOnJudges(judgeScope, mode)) return null;
    const judges = measuringJudges(judgeScope, mode);
    if (judges.length === 0) return null;
    const key = judges.join(",");
    if (!readByGroup.has(key)) readByGroup.set(key, judgedTracesByGroup(database, projectId, filter, byAgent, judges));
    return (await readByGroup.get(key)!).get(g) ?? 0;
  };
  const denominatorsOfPage = await Promise.all(page.map(async (r) => (await judgeDenominator(String(r.g), String(r.mode))) ?? num(r.d)));
  return [
    page.map((r, i) => {
      const g = String(r.g);
      const mode = String(r.mode);
      // Each pair has a finding, so its mode is measured.
      const m = measurements.get(mode) ?? measurementOf(new Map(), mode, num(r.n));
      return {
        group: byAgent ? g : g === "" ? null : g,
        mode,
        category: categoryOfMode(mode),
        numerator: num(r.n),
        denominator: denominatorsOfPage[i]!,
        rate: ratioOrNull(num(r.n), denominatorsOfPage[i]!),
        ...m,
        ...rateValidation(judgeScope, mode),
      };
    }),
    nextCursor,
  ];
}
