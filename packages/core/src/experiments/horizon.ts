/**
 * Time horizon (docs/experiments.md §6): P(success | t) = σ(b0 + b1·log2 t)
 * fitted by maximum likelihood over tasks with a human time t in minutes;
 * the q horizon is 2^((logit q − b0) / b1). The interval resamples task
 * families, then tasks within each drawn family (tasks of one family are
 * correlated, as runs of one task are).
 */
import { quantile } from "../stats/bootstrap.ts";
import type { Rng } from "../stats/rng.ts";
import { minTasksForInterval } from "./interval.ts";

/** A fit needs at least this many tasks with human minutes ... */
export const minHorizonTasks = 10;
/** ... spanning at least this many doublings of length (a factor of 4). */
export const minHorizonLog2Range = 2;
/** A fitted |slope| past this many logits per doubling means the classes separate: no finite fit. */
const maxSlope = 20;

export interface HorizonTask {
  taskId: string;
  /** Task family; tasks without one are a family of their own. */
  family: string | null;
  humanMinutes: number;
  trials: number;
  /** Successes (or summed partial credit) over the trials. */
  successes: number;
}

export interface LogisticFit {
  intercept: number;
  /** Change in log-odds of success per doubling of task length. */
  slope: number;
}

export type HorizonRefusal = "too_few_tasks" | "too_narrow_range" | "all_succeeded" | "all_failed" | "no_finite_fit" | "success_does_not_fall_with_length";

export interface HorizonEstimate {
  minutes: number;
  lower: number | null;
  upper: number | null;
  /** Outside the range of task lengths observed: an extrapolation. */
  extrapolated: boolean;
}

export type TimeHorizon =
  | {
      status: "fitted";
      fit: LogisticFit;
      h50: HorizonEstimate;
      h80: HorizonEstimate;
      tasks: number;
      families: number;
      confidence: number;
      /** Resamples whose own fit succeeded; the interval is over these. */
      iterations: number;
      /** Resamples that could not be fitted (degenerate draws). */
      failedResamples: number;
      fewTasks: boolean;
    }
  | { status: "refused"; reason: HorizonRefusal; message: string; tasks: number };

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const logit = (q: number) => Math.log(q / (1 - q));

/** Newton–Raphson on the binomial log-likelihood; null when it does not converge to a finite slope. */
export function fitLogistic(tasks: readonly { x: number; trials: number; successes: number }[]): LogisticFit | null {
  const n = tasks.reduce((s, t) => s + t.trials, 0);
  const s = tasks.reduce((a, t) => a + t.successes, 0);
  if (n === 0 || s <= 0 || s >= n) return null;
  let b0 = logit(s / n);
  let b1 = 0;
  for (let iter = 0; iter < 100; iter++) {
    let g0 = 0;
    let g1 = 0;
    let h00 = 0;
    let h01 = 0;
    let h11 = 0;
    for (const t of tasks) {
      const p = sigmoid(b0 + b1 * t.x);
      const r = t.successes - t.trials * p;
      const w = t.trials * p * (1 - p);
      g0 += r;
      g1 += r * t.x;
      h00 += w;
      h01 += w * t.x;
      h11 += w * t.x * t.x;
    }
    const det = h00 * h11 - h01 * h01;
    if (!(det > 1e-12)) return null;
    const d0 = (h11 * g0 - h01 * g1) / det;
    const d1 = (h00 * g1 - h01 * g0) / det;
    b0 += d0;
    b1 += d1;
    if (!Number.isFinite(b0) || !Number.isFinite(b1) || Math.abs(b1) > maxSlope) return null;
    if (Math.abs(d0) < 1e-10 && Math.abs(d1) < 1e-10) return { intercept: b0, slope: b1 };
  }
  return null;
}

/** Minutes at which the fitted success probability is q. */
export function horizonMinutes(fit: LogisticFit, q: number): number {
  return 2 ** ((logit(q) - fit.intercept) / fit.slope);
}

export interface TimeHorizonOptions {
  rng: Rng;
  iterations: number;
  confidence: number;
}

/** The fit, the 50% and 80% horizons with intervals, or a refusal saying why the data cannot support one. */
export function timeHorizon(input: readonly HorizonTask[], options: TimeHorizonOptions): TimeHorizon {
  const tasks = input.filter((t) => t.humanMinutes > 0 && t.trials > 0).sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  const refuse = (reason: HorizonRefusal, message: string): TimeHorizon => ({ status: "refused", reason, message, tasks: tasks.length });
  if (tasks.length < minHorizonTasks) return refuse("too_few_tasks", `${tasks.length} tasks with human minutes; a fit needs at least ${minHorizonTasks}`);
  const xs = tasks.map((t) => Math.log2(t.humanMinutes));
  const range = Math.max(...xs) - Math.min(...xs);
  if (range < minHorizonLog2Range) {
    return refuse("too_narrow_range", `task lengths span ${range.toFixed(2)} doublings; a fit needs at least ${minHorizonLog2Range}`);
  }
  const successes = tasks.reduce((s, t) => s + t.successes, 0);
  const trials = tasks.reduce((s, t) => s + t.trials, 0);
  if (successes >= trials) return refuse("all_succeeded", "every run succeeded: no length at which success falls");
  if (successes <= 0) return refuse("all_failed", "every run failed: no length at which anything succeeds");
  const rows = tasks.map((t, i) => ({ x: xs[i] as number, trials: t.trials, successes: t.successes }));
  const fit = fitLogistic(rows);
  if (fit === null) return refuse("no_finite_fit", "success is perfectly separated by length (or the fit did not converge): no finite curve");
  if (fit.slope >= 0)
    return refuse("success_does_not_fall_with_length", `the fitted slope is ${fit.slope.toFixed(3)} per doubling: success does not fall with length`);

  const families = new Map<string, number[]>();
  tasks.forEach((t, i) => {
    const key = t.family ?? `task:${t.taskId}`;
    families.set(key, [...(families.get(key) ?? []), i]);
  });
  const groups = [...families.keys()].sort().map((k) => families.get(k) as number[]);
  const h50s: number[] = [];
  const h80s: number[] = [];
  let failed = 0;
  for (let b = 0; b < options.iterations; b++) {
    const sample: typeof rows = [];
    for (let g = 0; g < groups.length; g++) {
      const group = groups[Math.min(groups.length - 1, Math.floor(options.rng() * groups.length))] as number[];
      for (let j = 0; j < group.length; j++)
        sample.push(rows[group[Math.min(group.length - 1, Math.floor(options.rng() * group.length))] as number] as (typeof rows)[number]);
    }
    const f = fitLogistic(sample);
    if (f === null || f.slope >= 0) {
      failed++;
      continue;
    }
    h50s.push(Math.log2(horizonMinutes(f, 0.5)));
    h80s.push(Math.log2(horizonMinutes(f, 0.8)));
  }
  const alpha = (1 - options.confidence) / 2;
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const estimate = (q: number, draws: number[]): HorizonEstimate => {
    const minutes = horizonMinutes(fit, q);
    draws.sort((a, b) => a - b);
    const x = Math.log2(minutes);
    return {
      minutes,
      lower: draws.length === 0 ? null : 2 ** quantile(draws, alpha),
      upper: draws.length === 0 ? null : 2 ** quantile(draws, 1 - alpha),
      extrapolated: x < lo || x > hi,
    };
  };
  return {
    status: "fitted",
    fit,
    h50: estimate(0.5, h50s),
    h80: estimate(0.8, h80s),
    tasks: tasks.length,
    families: groups.length,
    confidence: options.confidence,
    iterations: h50s.length,
    failedResamples: failed,
    fewTasks: tasks.length < minTasksForInterval,
  };
}
