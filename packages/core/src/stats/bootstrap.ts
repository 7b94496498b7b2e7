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

/**
 * Wilson score interval of a mean in [0, 1] over n independent units. For a
 * value in [0, 1] with mean p, p(1 − p) bounds its variance (a 0/1 value
 * reaches it), so for task means that are fractions the interval is, if
 * anything, wide. Never degenerate for n ≥ 1: one unit that succeeded gives
 * about [0.21, 1] at 95 %.
 */
export function wilsonInterval(p: number, n: number, confidence: number): { lower: number; upper: number } {
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At p = 0 or 1 the bound is 0 or 1 exactly (rounding would leave 1e-16 off).
  return { lower: p <= 0 ? 0 : Math.max(0, centre - half), upper: p >= 1 ? 1 : Math.min(1, centre + half) };
}

/** Inverse of the standard normal CDF (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(q: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const tail = (r: number) =>
    (((((c[0]! * r + c[1]!) * r + c[2]!) * r + c[3]!) * r + c[4]!) * r + c[5]!) / ((((d[0]! * r + d[1]!) * r + d[2]!) * r + d[3]!) * r + 1);
  if (q < low) return tail(Math.sqrt(-2 * Math.log(q)));
  if (q > 1 - low) return -tail(Math.sqrt(-2 * Math.log(1 - q)));
  const r = q - 0.5;
  const s = r * r;
  return (
    ((((((a[0]! * s + a[1]!) * s + a[2]!) * s + a[3]!) * s + a[4]!) * s + a[5]!) * r) / (((((b[0]! * s + b[1]!) * s + b[2]!) * s + b[3]!) * s + b[4]!) * s + 1)
  );
}
