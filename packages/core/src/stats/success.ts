/**
 * The success metrics of docs/metrics.md §10 from what the rollups aggregate
 * (per-task mean success, run counts, milestone sums): the task-level
 * bootstrap interval, its seed and iteration count, and each milestone's pass
 * rate. The storage layer only counts; every figure derived from the counts is
 * computed here.
 */
import { defaultBootstrapIterations, successRateCI, wilsonInterval, type SuccessRate } from "./bootstrap.ts";
import { ratioOrNull } from "./ratio.ts";
import { mulberry32 } from "./rng.ts";

/** Fixed so the same data always gives the same interval. */
export const defaultBootstrapSeed = 0x5eed;
/** Resampling cost is iterations × tasks: past this many draws the iteration count shrinks ... */
export const maxBootstrapDraws = 20_000_000;
/** ... but never below this many resamples. */
export const minBootstrapIterations = 200;
/**
 * Fewer tasks than this and a bootstrap over tasks looks more certain than it
 * is (one task: every resample is that task, a zero-width interval); the
 * interval is then Wilson's over the tasks (docs/metrics.md §10).
 */
export const minBootstrapTasks = 10;

/** What the success metrics are computed from: counts and means over a window's runs. */
export interface SuccessInputs {
  /** Per task: mean success over its runs with a known outcome (a run without task id is its own task). */
  tasks: { taskId: string; runs: number; successRate: number }[];
  runs: number;
  successfulRuns: number;
  runsWithoutOutcome: number;
  /** Runs tagged crux.baseline=true: the single-agent reference, left out of runs and success counts. */
  baselineRuns: number;
  milestones: {
    traces: number;
    meanPartialCredit: number | null;
    fullSuccessRate: number | null;
    meanFurthestIndex: number | null;
    /** Milestones evaluated on at least one trace. */
    perMilestone: { id: string; traces: number; passed: number }[];
  };
}

/** How the interval was made: a bootstrap over tasks, or Wilson's score interval over tasks when there are fewer than minBootstrapTasks. */
export type SuccessIntervalMethod = "bootstrap" | "wilson";

export interface SuccessMetrics {
  successRate: (SuccessRate & { seed: number; method: SuccessIntervalMethod }) | null;
  runs: number;
  successfulRuns: number;
  runsWithoutOutcome: number;
  /** Baseline runs in scope, left out of every figure above. */
  baselineRuns: number;
  milestones: Omit<SuccessInputs["milestones"], "perMilestone"> & {
    perMilestone: { id: string; traces: number; passed: number; passRate: number }[];
  };
}

export interface SuccessMetricsOptions {
  seed?: number;
  iterations?: number;
  confidence?: number;
}

/** The resamples for `tasks` tasks: the requested count, capped at maxBootstrapDraws / tasks, floored at minBootstrapIterations. */
export function bootstrapIterationsFor(tasks: number, requested: number = defaultBootstrapIterations): number {
  return Math.max(minBootstrapIterations, Math.min(requested, Math.floor(maxBootstrapDraws / Math.max(1, tasks))));
}

export function successMetricsOf(inputs: SuccessInputs, opts: SuccessMetricsOptions = {}): SuccessMetrics {
  const seed = opts.seed ?? defaultBootstrapSeed;
  const confidence = opts.confidence ?? 0.95;
  const tasks = inputs.tasks.length;
  let successRate: SuccessMetrics["successRate"] = null;
  if (tasks > 0 && tasks < minBootstrapTasks) {
    const estimate = inputs.tasks.reduce((sum, t) => sum + t.successRate, 0) / tasks;
    const { lower, upper } = wilsonInterval(estimate, tasks, confidence);
    successRate = { estimate, lower, upper, confidence, iterations: 0, tasks, runs: inputs.runs, seed, method: "wilson" };
  } else if (tasks > 0) {
    // One entry per task carrying its mean: successRateCI averages runs per task, so this is the same interval.
    const ci = successRateCI(
      inputs.tasks.map((t) => ({ taskId: t.taskId, success: t.successRate })),
      { rng: mulberry32(seed), iterations: bootstrapIterationsFor(tasks, opts.iterations), confidence },
    );
    if (ci !== null) successRate = { ...ci, runs: inputs.runs, seed, method: "bootstrap" };
  }
  return {
    successRate,
    runs: inputs.runs,
    successfulRuns: inputs.successfulRuns,
    runsWithoutOutcome: inputs.runsWithoutOutcome,
    baselineRuns: inputs.baselineRuns,
    milestones: {
      ...inputs.milestones,
      // A listed milestone was evaluated at least once; 0 stands for a row that says otherwise.
      perMilestone: inputs.milestones.perMilestone.map((m) => ({ ...m, passRate: ratioOrNull(m.passed, m.traces) ?? 0 })),
    },
  };
}
