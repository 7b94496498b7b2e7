/**
 * The experiment report (docs/experiments.md §3-§7), pure: runs in, every
 * figure out, each naming the runs or tasks behind it. Randomness comes from
 * the seed alone, so the same runs give the same report.
 */
import { mulberry32 } from "../stats/rng.ts";
import { deriveDirective, type Directive, type FailureStage, type ShipBar } from "./directive.ts";
import { bootstrapOverTasks, mean, meanAt, standardDeviation, type Interval, type IntervalOptions } from "./interval.ts";
import { leaveOneOut, type LeaveOneOut } from "./leave-one-out.ts";
import { comparePaired, type PairedComparison, type TaskMeans } from "./paired.ts";
import { paretoFrontier } from "./pareto.ts";
import { passHatKOfTask, passKCurve, type PassKPoint } from "./pass-k.ts";
import { coalitionKey, coalitionLookup, exactShapley, maxExactShapleyAgents, monteCarloShapley, sampleOrderings } from "./shapley.ts";
import { timeHorizon, type TimeHorizon } from "./horizon.ts";

export interface ExperimentRun {
  traceId: string;
  variant: string;
  taskId: string;
  trial: number | null;
  /** The run's own crux.agents.active, else null (the variant's set applies). */
  activeAgents: string[] | null;
  /** null: outcome unknown (left out of success figures, counted). */
  success: boolean | null;
  partialCredit: number | null;
  furthestMilestone: number | null;
  tokens: number;
  costUsd: number | null;
  wallMs: number;
  /** Modes with a finding on this run (code and judge). */
  modes: string[];
  /** Where the run's decisive error starts, when attributed. */
  failureStart: FailureStage | null;
}

export interface ExperimentVariantSpec {
  name: string;
  isBaseline: boolean;
  /** null: the whole system. */
  activeAgents: string[] | null;
}

export interface ExperimentTaskSpec {
  taskId: string;
  humanMinutes: number | null;
  family: string | null;
}

export interface ExperimentReportInput {
  valueKind: "success" | "partial_credit";
  variants: ExperimentVariantSpec[];
  runs: ExperimentRun[];
  tasks: ExperimentTaskSpec[];
  /** Failure modes something measures for the project (others are reported unmeasured). */
  measuredModes: string[];
  allModes: string[];
  bar: ShipBar | null;
}

export interface ReportOptions {
  seed: number;
  iterations: number;
  confidence: number;
  /** Orderings sampled for Monte-Carlo Shapley. */
  shapleyOrderings: number;
}

export const defaultReportOptions: ReportOptions = { seed: 0x5eed, iterations: 2000, confidence: 0.95, shapleyOrderings: 200 };

export interface Spread {
  mean: number;
  sd: number;
  tasks: number;
}

export interface VariantReport {
  name: string;
  isBaseline: boolean;
  activeAgents: string[] | null;
  traceIds: string[];
  runs: number;
  runsWithoutOutcome: number;
  tasks: number;
  minTrials: number;
  successRate: Interval | null;
  meanValue: number | null;
  passK: PassKPoint[];
  meanPartialCredit: number | null;
  /** Runs by furthest milestone index passed (-1: none passed). */
  furthestMilestones: { index: number; runs: number }[];
  tokensPerTask: Spread | null;
  costPerTask: Spread | null;
  wallMsPerTask: Spread | null;
  failureModes: { mode: string; measured: boolean; runs: number; rate: number | null }[];
  dominantMode: string | null;
  vsBaseline: PairedComparison | null;
  onParetoFrontier: boolean | null;
  timeHorizon: TimeHorizon;
}

export interface CreditReport {
  agents: string[];
  /** Measured coalitions: key, agents, value (mean over tasks), the variants and runs behind it. */
  coalitions: { agents: string[]; value: number; tasks: number; runs: number; variants: string[] }[];
  leaveOneOut: (LeaveOneOut & { withoutVariants: string[] })[];
  missingForLeaveOneOut: string[];
  shapley:
    | { method: "exact"; values: Record<string, number>; sum: number; grandMinusEmpty: number }
    | { method: "monte_carlo"; values: Record<string, { value: number; standardError: number }>; orderings: number; seed: number }
    | { method: "none"; missingCoalitions: string[][]; reason: string };
}

export interface ExperimentReport {
  valueKind: "success" | "partial_credit";
  baseline: string | null;
  candidate: string | null;
  variants: VariantReport[];
  credit: CreditReport | null;
  directive: Directive;
  seed: number;
  iterations: number;
  confidence: number;
}

function valueOf(run: ExperimentRun, kind: ExperimentReportInput["valueKind"]): number | null {
  if (kind === "partial_credit" && run.partialCredit !== null) return run.partialCredit;
  return run.success === null ? null : run.success ? 1 : 0;
}

function byTask<T>(runs: ExperimentRun[], f: (r: ExperimentRun) => T | null): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of runs) {
    const v = f(r);
    if (v === null) continue;
    m.set(r.taskId, [...(m.get(r.taskId) ?? []), v]);
  }
  return new Map([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const spreadOf = (perTask: Map<string, number[]>): Spread | null => {
  const means = [...perTask.values()].map(mean);
  return means.length === 0 ? null : { mean: mean(means), sd: standardDeviation(means), tasks: means.length };
};

/** Per task: mean value, tokens and cost (cost null when any run of the task is unpriced). */
function taskMeans(runs: ExperimentRun[], kind: ExperimentReportInput["valueKind"]): TaskMeans[] {
  const out: TaskMeans[] = [];
  for (const [taskId, rs] of byTask(runs, (r) => (valueOf(r, kind) === null ? null : r))) {
    out.push({
      taskId,
      value: mean(rs.map((r) => valueOf(r, kind) as number)),
      tokens: mean(rs.map((r) => r.tokens)),
      costUsd: rs.every((r) => r.costUsd !== null) ? mean(rs.map((r) => r.costUsd as number)) : null,
    });
  }
  return out;
}

export function buildExperimentReport(input: ExperimentReportInput, options: ReportOptions = defaultReportOptions): ExperimentReport {
  const rngFor = (salt: number) => mulberry32((options.seed ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0);
  const intervalOptions = (salt: number): IntervalOptions => ({ rng: rngFor(salt), iterations: options.iterations, confidence: options.confidence });
  const variantNames = [...new Set([...input.variants.map((v) => v.name), ...input.runs.map((r) => r.variant)])].sort();
  const spec = (name: string): ExperimentVariantSpec => input.variants.find((v) => v.name === name) ?? { name, isBaseline: false, activeAgents: null };
  const runsOf = (name: string) => input.runs.filter((r) => r.variant === name);
  const baseline = variantNames.find((n) => spec(n).isBaseline) ?? null;
  const baselineMeans = baseline === null ? null : taskMeans(runsOf(baseline), input.valueKind);
  const taskSpec = new Map(input.tasks.map((t) => [t.taskId, t]));
  const measured = new Set(input.measuredModes);

  const variants: VariantReport[] = variantNames.map((name, vi) => {
    const runs = runsOf(name);
    const s = spec(name);
    const values = byTask(runs, (r) => valueOf(r, input.valueKind));
    const successes = byTask(runs, (r) => (r.success === null ? null : r.success ? 1 : 0) as number | null);
    const perTaskSuccess = [...successes.values()].map(mean);
    const trials = [...successes].map(([taskId, xs]) => ({ taskId, trials: xs.length, successes: xs.reduce((a, b) => a + b, 0) }));
    const credits = runs.filter((r) => r.partialCredit !== null).map((r) => r.partialCredit as number);
    const furthest = new Map<number, number>();
    for (const r of runs)
      if (r.furthestMilestone !== null || r.partialCredit !== null) furthest.set(r.furthestMilestone ?? -1, (furthest.get(r.furthestMilestone ?? -1) ?? 0) + 1);
    const modes = input.allModes.map((mode) => {
      const n = runs.filter((r) => r.modes.includes(mode)).length;
      const isMeasured = measured.has(mode) || n > 0;
      return { mode, measured: isMeasured, runs: n, rate: isMeasured && runs.length > 0 ? n / runs.length : null };
    });
    const dominant = modes
      .filter((m) => m.rate !== null && m.runs > 0)
      .sort((a, b) => (b.rate as number) - (a.rate as number) || (a.mode < b.mode ? -1 : 1))[0];
    const horizonTasks = trials.flatMap((t) => {
      const ts = taskSpec.get(t.taskId);
      return ts?.humanMinutes == null ? [] : [{ taskId: t.taskId, family: ts.family, humanMinutes: ts.humanMinutes, trials: t.trials, successes: t.successes }];
    });
    return {
      name,
      isBaseline: s.isBaseline,
      activeAgents: s.activeAgents,
      traceIds: runs.map((r) => r.traceId).sort(),
      runs: runs.length,
      runsWithoutOutcome: runs.filter((r) => r.success === null).length,
      tasks: new Set(runs.map((r) => r.taskId)).size,
      minTrials: trials.length === 0 ? 0 : Math.min(...trials.map((t) => t.trials)),
      successRate: bootstrapOverTasks(perTaskSuccess.length, (ix) => meanAt(perTaskSuccess, ix), intervalOptions(vi * 16)),
      meanValue: values.size === 0 ? null : mean([...values.values()].map(mean)),
      passK: passKCurve(trials),
      meanPartialCredit: credits.length === 0 ? null : mean(credits),
      furthestMilestones: [...furthest].sort(([a], [b]) => a - b).map(([index, n]) => ({ index, runs: n })),
      tokensPerTask: spreadOf(byTask(runs, (r) => r.tokens)),
      costPerTask: spreadOf(byTask(runs, (r) => r.costUsd)),
      wallMsPerTask: spreadOf(byTask(runs, (r) => r.wallMs)),
      failureModes: modes,
      dominantMode: dominant?.mode ?? null,
      vsBaseline:
        baselineMeans === null || name === baseline ? null : comparePaired(taskMeans(runs, input.valueKind), baselineMeans, intervalOptions(vi * 16 + 1)),
      onParetoFrontier: null,
      timeHorizon: timeHorizon(horizonTasks, { ...intervalOptions(vi * 16 + 2), iterations: Math.min(options.iterations, 1000) }),
    };
  });
  const points = variants
    .filter((v) => v.meanValue !== null && v.costPerTask !== null)
    .map((v) => ({ id: v.name, quality: v.meanValue as number, cost: (v.costPerTask as Spread).mean }));
  const frontier = paretoFrontier(points);
  for (const v of variants) v.onParetoFrontier = points.some((p) => p.id === v.name) ? frontier.has(v.name) : null;

  const credit = creditReport(input, variantNames, spec, options, intervalOptions);
  const candidate = pickCandidate(variants, credit);
  const c = variants.find((v) => v.name === candidate);
  const candidateRuns = candidate === null ? [] : runsOf(candidate);
  const directive = deriveDirective({
    bar: input.bar,
    candidate,
    cau: c?.vsBaseline?.cau.value ?? null,
    cauStatus: c?.vsBaseline === null || c === undefined ? null : `${c.vsBaseline.cau.status}: ${c.vsBaseline.cau.reason}`,
    qualityDifference: c?.vsBaseline?.qualityDifference ?? null,
    passHatK: (k) => {
      const trials = [...byTask(candidateRuns, (r) => (r.success === null ? null : r.success ? 1 : 0) as number | null)].map(([, xs]) => ({
        n: xs.length,
        c: xs.reduce((a, b) => a + b, 0),
      }));
      if (trials.length === 0 || trials.some((t) => t.n < k)) return null;
      const per = trials.map((t) => passHatKOfTask(t.n, t.c, k));
      return bootstrapOverTasks(per.length, (ix) => meanAt(per, ix), intervalOptions(9_999));
    },
    modes: (c?.failureModes ?? [])
      .filter((m) => m.rate !== null)
      .map((m) => {
        const stages: Partial<Record<FailureStage, number>> = {};
        for (const r of candidateRuns) if (r.modes.includes(m.mode) && r.failureStart !== null) stages[r.failureStart] = (stages[r.failureStart] ?? 0) + 1;
        return { mode: m.mode, rate: m.rate as number, runs: m.runs, stages };
      }),
    harmful: credit?.leaveOneOut.filter((l) => l.verdict === "harmful").map((l) => l.agent) ?? [],
    deadWeight: credit?.leaveOneOut.filter((l) => l.verdict === "dead_weight").map((l) => l.agent) ?? [],
  });
  return {
    valueKind: input.valueKind,
    baseline,
    candidate,
    variants,
    credit,
    directive,
    seed: options.seed,
    iterations: options.iterations,
    confidence: options.confidence,
  };
}

/** The variant the directive speaks of: the whole system (the grand coalition), else the first non-baseline variant. */
function pickCandidate(variants: VariantReport[], credit: CreditReport | null): string | null {
  const others = variants.filter((v) => !v.isBaseline);
  if (credit !== null) {
    const grand = coalitionKey(credit.agents);
    const full = others.find((v) => v.activeAgents === null) ?? others.find((v) => v.activeAgents !== null && coalitionKey(v.activeAgents) === grand);
    if (full !== undefined) return full.name;
  }
  return others[0]?.name ?? null;
}

function creditReport(
  input: ExperimentReportInput,
  variantNames: string[],
  spec: (name: string) => ExperimentVariantSpec,
  options: ReportOptions,
  intervalOptions: (salt: number) => IntervalOptions,
): CreditReport | null {
  const gameRuns = input.runs.filter((r) => !spec(r.variant).isBaseline);
  const agents = [
    ...new Set([...variantNames.flatMap((n) => (spec(n).isBaseline ? [] : (spec(n).activeAgents ?? []))), ...gameRuns.flatMap((r) => r.activeAgents ?? [])]),
  ].sort();
  if (agents.length === 0) return null;
  const coalitionOf = (r: ExperimentRun) => r.activeAgents ?? spec(r.variant).activeAgents ?? agents;
  const groups = new Map<string, { agents: string[]; runs: ExperimentRun[] }>();
  for (const r of gameRuns) {
    if (valueOf(r, input.valueKind) === null) continue;
    const members = [...new Set(coalitionOf(r))].sort();
    const key = coalitionKey(members);
    const g = groups.get(key) ?? { agents: members, runs: [] };
    g.runs.push(r);
    groups.set(key, g);
  }
  const perTask = new Map<string, Map<string, number>>();
  const coalitions: CreditReport["coalitions"] = [];
  for (const [key, g] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const tm = new Map([...byTask(g.runs, (r) => valueOf(r, input.valueKind))].map(([t, xs]) => [t, mean(xs)]));
    perTask.set(key, tm);
    coalitions.push({
      agents: g.agents,
      value: mean([...tm.values()]),
      tasks: tm.size,
      runs: g.runs.length,
      variants: [...new Set(g.runs.map((r) => r.variant))].sort(),
    });
  }
  const measuredValues = new Map(coalitions.map((c) => [coalitionKey(c.agents), c.value]));
  const value = coalitionLookup(measuredValues);
  const grandKey = coalitionKey(agents);
  const missingForLeaveOneOut: string[] = [];
  const loo: CreditReport["leaveOneOut"] = [];
  agents.forEach((agent, i) => {
    const withoutKey = coalitionKey(agents.filter((a) => a !== agent));
    const full = perTask.get(grandKey);
    const without = perTask.get(withoutKey);
    if (full === undefined || without === undefined) {
      missingForLeaveOneOut.push(agent);
      return;
    }
    loo.push({
      ...leaveOneOut(agent, full, without, intervalOptions(5_000 + i)),
      withoutVariants:
        groups
          .get(withoutKey)
          ?.runs.map((r) => r.variant)
          .filter((v, j, a) => a.indexOf(v) === j) ?? [],
    });
  });
  let shapley: CreditReport["shapley"];
  const exact = exactShapley(agents, value);
  if (exact.status === "computed") {
    const sum = Object.values(exact.values).reduce((a, b) => a + b, 0);
    shapley = { method: "exact", values: exact.values, sum, grandMinusEmpty: exact.grandValue - exact.emptyValue };
  } else {
    const orderings = sampleOrderings(agents, options.shapleyOrderings, mulberry32(options.seed));
    const mc = monteCarloShapley(orderings, value);
    if (mc.status === "computed") shapley = { method: "monte_carlo", values: mc.values, orderings: mc.orderings, seed: options.seed };
    else {
      const missing = exact.status === "missing_coalitions" && agents.length <= maxExactShapleyAgents ? exact.missing : mc.missing;
      shapley = {
        method: "none",
        missingCoalitions: missing,
        reason: `${missing.length} coalitions were not run; generate the ablation variants (POST /experiments/:id/ablations) and run them`,
      };
    }
  }
  return { agents, coalitions, leaveOneOut: loo, missingForLeaveOneOut, shapley };
}
