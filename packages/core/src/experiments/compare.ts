/**
 * Before and after a change (docs/experiments.md §7): did a failure mode's
 * rate drop? Each experiment's runs are resampled by task on its own (the
 * two are independent samples); the change is after − before.
 */
import type { Rng } from "../stats/rng.ts";
import { quantile } from "../stats/bootstrap.ts";
import { minTasksForInterval, type Interval } from "./interval.ts";

/** Per task: the share of its runs with the mode. */
function perTaskRates(runs: readonly { taskId: string; modes: readonly string[] }[], mode: string): number[] {
  const m = new Map<string, [number, number]>();
  for (const r of runs) {
    const [hit, n] = m.get(r.taskId) ?? [0, 0];
    m.set(r.taskId, [hit + (r.modes.includes(mode) ? 1 : 0), n + 1]);
  }
  return [...m.keys()].sort().map((k) => {
    const [hit, n] = m.get(k)!;
    return hit / n;
  });
}

const meanOf = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

export interface ModeRateChange {
  before: number | null;
  after: number | null;
  change: Interval | null;
  /** The whole interval lies below 0. */
  dropped: boolean | null;
}

export function modeRateChange(
  before: readonly { taskId: string; modes: readonly string[] }[],
  after: readonly { taskId: string; modes: readonly string[] }[],
  mode: string,
  options: { rng: Rng; iterations: number; confidence: number },
): ModeRateChange {
  const b = perTaskRates(before, mode);
  const a = perTaskRates(after, mode);
  if (a.length === 0 || b.length === 0)
    return { before: b.length === 0 ? null : meanOf(b), after: a.length === 0 ? null : meanOf(a), change: null, dropped: null };
  const draws: number[] = [];
  const resampledMean = (xs: number[]) => {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[Math.min(xs.length - 1, Math.floor(options.rng() * xs.length))]!;
    return s / xs.length;
  };
  for (let i = 0; i < options.iterations; i++) draws.push(resampledMean(a) - resampledMean(b));
  draws.sort((x, y) => x - y);
  const alpha = (1 - options.confidence) / 2;
  const change: Interval = {
    estimate: meanOf(a) - meanOf(b),
    lower: quantile(draws, alpha),
    upper: quantile(draws, 1 - alpha),
    confidence: options.confidence,
    iterations: options.iterations,
    tasks: Math.min(a.length, b.length),
    fewTasks: Math.min(a.length, b.length) < minTasksForInterval,
  };
  return { before: meanOf(b), after: meanOf(a), change, dropped: change.upper < 0 };
}
