/**
 * Intervals over tasks for experiment figures: a statistic of per-task rows,
 * recomputed on resamples that draw whole tasks with replacement (runs of one
 * task are correlated; docs/metrics.md §10). Paired figures resample the
 * task, so both sides of a pair move together.
 */
import { quantile } from "../stats/bootstrap.ts";
import type { Rng } from "../stats/rng.ts";

/** Below this many tasks an interval is reported with fewTasks: it is too wide to trust, however narrow it looks. */
export const minTasksForInterval = 10;

export interface IntervalOptions {
  rng: Rng;
  iterations: number;
  /** Two-sided level, e.g. 0.95. */
  confidence: number;
}

export interface Interval {
  estimate: number;
  lower: number;
  upper: number;
  confidence: number;
  /** Resamples that gave a value (a ratio over a resample whose denominator is 0 gives none). */
  iterations: number;
  tasks: number;
  /** Fewer than minTasksForInterval tasks: the interval says little. */
  fewTasks: boolean;
}

/**
 * Percentile interval of `statistic` over task resamples. `statistic` gets the
 * indices of the drawn tasks (with repeats) and returns null when undefined on
 * that resample. Null when the statistic is undefined on the data itself.
 */
export function bootstrapOverTasks(tasks: number, statistic: (indices: number[]) => number | null, options: IntervalOptions): Interval | null {
  const all = Array.from({ length: tasks }, (_, i) => i);
  const estimate = tasks === 0 ? null : statistic(all);
  if (estimate === null || !Number.isFinite(estimate)) return null;
  const values: number[] = [];
  const draw = new Array<number>(tasks);
  for (let b = 0; b < options.iterations; b++) {
    for (let i = 0; i < tasks; i++) draw[i] = Math.min(tasks - 1, Math.floor(options.rng() * tasks));
    const v = statistic(draw);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  values.sort((x, y) => x - y);
  const alpha = (1 - options.confidence) / 2;
  return {
    estimate,
    lower: values.length === 0 ? estimate : quantile(values, alpha),
    upper: values.length === 0 ? estimate : quantile(values, 1 - alpha),
    confidence: options.confidence,
    iterations: values.length,
    tasks,
    fewTasks: tasks < minTasksForInterval,
  };
}

/** Mean of the picked entries of `xs`. */
export function meanAt(xs: readonly number[], indices: readonly number[]): number {
  let s = 0;
  for (const i of indices) s += xs[i] as number;
  return s / indices.length;
}

/** True when the interval holds 0: the figure is inside the run-to-run spread. */
export function includesZero(interval: Pick<Interval, "lower" | "upper">): boolean {
  return interval.lower <= 0 && interval.upper >= 0;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Sample standard deviation; 0 for fewer than two values. */
export function standardDeviation(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}
