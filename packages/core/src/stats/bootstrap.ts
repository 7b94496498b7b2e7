/**
 * Bootstrap confidence intervals over tasks, not runs: runs of one task are
 * correlated, so each resample draws whole tasks with replacement and a
 * task contributes the mean of its runs (docs/metrics.md §10).
 */
import type { Rng } from "./rng.ts";

/** Resamples when the caller names none. */
export const defaultBootstrapIterations = 2000;

export interface BootstrapOptions {
  rng: Rng;
  /** Resamples. Default defaultBootstrapIterations. */
  iterations?: number;
  /** Two-sided level. Default 0.95. */
  confidence?: number;
}

export interface BootstrapInterval {
  estimate: number;
  lower: number;
  upper: number;
  confidence: number;
  iterations: number;
}

/** Percentile-method interval of the mean of per-task values. Null for no task. */
export function bootstrapMeanCI(taskValues: number[], options: BootstrapOptions): BootstrapInterval | null {
  const n = taskValues.length;
  if (n === 0) return null;
  const iterations = options.iterations ?? defaultBootstrapIterations;
  const confidence = options.confidence ?? 0.95;
  const estimate = taskValues.reduce((s, v) => s + v, 0) / n;
  const means = new Array<number>(iterations);
  for (let b = 0; b < iterations; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += taskValues[Math.min(n - 1, Math.floor(options.rng() * n))] as number;
    means[b] = sum / n;
  }
  means.sort((x, y) => x - y);
  const alpha = (1 - confidence) / 2;
  return { estimate, lower: quantile(means, alpha), upper: quantile(means, 1 - alpha), confidence, iterations };
}

/** Linear-interpolated quantile of sorted values. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * Math.min(Math.max(q, 0), 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

export interface RunOutcome {
  taskId: string;
  /** true/false, or a score in [0,1]. */
  success: boolean | number;
}

export interface SuccessRate extends BootstrapInterval {
  tasks: number;
  runs: number;
}

/** Success rate (mean over tasks of each task's mean success) with a task-level bootstrap interval. */
export function successRateCI(runs: RunOutcome[], options: BootstrapOptions): SuccessRate | null {
  const byTask = new Map<string, number[]>();
  for (const r of runs) {
    const v = typeof r.success === "boolean" ? (r.success ? 1 : 0) : r.success;
    byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), v]);
  }
  // Sorted task ids: the same runs in any order give the same interval for a seed.
  const taskValues = [...byTask.keys()].sort().map((id) => {
    const vs = byTask.get(id) as number[];
    return vs.reduce((s, v) => s + v, 0) / vs.length;
  });
  const ci = bootstrapMeanCI(taskValues, options);
  return ci === null ? null : { ...ci, tasks: taskValues.length, runs: runs.length };
}
