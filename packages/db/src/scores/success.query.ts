/**
 * Task success rate with a bootstrap interval over tasks (docs/metrics.md §10), plus
 * milestone coverage. The rate is the system's: runs tagged crux.baseline=true
 * (the single-agent reference) are left out and counted in baselineRuns.
 */
import { mulberry32, successRateCI, type SuccessRate } from "@crux/core";
import type { Database } from "../client.ts";
import type { MetricsFilter } from "./metrics-filter.ts";
import { successInputs, type SuccessInputs } from "./outcomes.query.ts";

/** Fixed so the same data always gives the same interval. */
export const defaultBootstrapSeed = 0x5eed;
const defaultIterations = 2000;
// Resampling cost is iterations × tasks; past this many draws the iteration count shrinks (never below 200).
const maxBootstrapDraws = 20_000_000;

export interface SuccessMetrics {
  successRate: (SuccessRate & { seed: number }) | null;
  runs: number;
  successfulRuns: number;
  runsWithoutOutcome: number;
  /** Baseline runs in scope, left out of every figure above. */
  baselineRuns: number;
  milestones: SuccessInputs["milestones"];
}

export async function successMetrics(
  database: Database,
  projectId: string,
  filter: MetricsFilter,
  opts: { seed?: number; iterations?: number; confidence?: number } = {},
): Promise<SuccessMetrics> {
  const inputs = await successInputs(database, projectId, filter);
  const seed = opts.seed ?? defaultBootstrapSeed;
  const tasks = inputs.tasks.length;
  const iterations = Math.max(200, Math.min(opts.iterations ?? defaultIterations, Math.floor(maxBootstrapDraws / Math.max(1, tasks))));
  // One entry per task carrying its mean: successRateCI averages runs per task, so this is the same interval.
  const ci = successRateCI(
    inputs.tasks.map((t) => ({ taskId: t.taskId, success: t.successRate })),
    { rng: mulberry32(seed), iterations, ...(opts.confidence === undefined ? {} : { confidence: opts.confidence }) },
  );
  return {
    successRate: ci === null ? null : { ...ci, runs: inputs.runs, seed },
    runs: inputs.runs,
    successfulRuns: inputs.successfulRuns,
    runsWithoutOutcome: inputs.runsWithoutOutcome,
    baselineRuns: inputs.baselineRuns,
    milestones: inputs.milestones,
  };
}
