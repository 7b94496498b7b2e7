/**
 * pass@k and pass^k over tasks run n times each (docs/experiments.md §3).
 * For a task with c successes in n trials, drawing k of its trials without
 * replacement: pass^k = C(c,k)/C(n,k) (all k succeed), pass@k = 1 − C(n−c,k)/C(n,k)
 * (at least one does). Both are computed as products of k ratios, never as
 * binomial coefficients, so large n neither overflows nor loses precision.
 */

/** Probability that k trials drawn without replacement from n, c of them successes, all succeed. */
export function passHatKOfTask(trials: number, successes: number, k: number): number {
  checkCounts(trials, successes, k);
  if (successes < k) return 0;
  let p = 1;
  for (let i = 0; i < k; i++) p *= (successes - i) / (trials - i);
  return p;
}

/** Probability that at least one of k trials drawn without replacement from n, c of them successes, succeeds. */
export function passAtKOfTask(trials: number, successes: number, k: number): number {
  checkCounts(trials, successes, k);
  const failures = trials - successes;
  if (failures < k) return 1;
  let allFail = 1;
  for (let i = 0; i < k; i++) allFail *= (failures - i) / (trials - i);
  return 1 - allFail;
}

function checkCounts(trials: number, successes: number, k: number): void {
  if (!Number.isInteger(trials) || !Number.isInteger(successes) || !Number.isInteger(k)) throw new RangeError("pass@k: counts must be integers");
  if (k < 1 || k > trials || successes < 0 || successes > trials)
    throw new RangeError(`pass@k: need 1 <= k <= n and 0 <= c <= n (n=${trials}, c=${successes}, k=${k})`);
}

export interface TaskTrials {
  taskId: string;
  trials: number;
  successes: number;
}

export interface PassKPoint {
  k: number;
  /** Mean over tasks of pass@k. */
  passAtK: number;
  /** Mean over tasks of pass^k. */
  passHatK: number;
}

/** pass@k and pass^k for every k from 1 to the smallest trial count over the tasks; empty for no task. */
export function passKCurve(tasks: TaskTrials[]): PassKPoint[] {
  if (tasks.length === 0) return [];
  const maxK = Math.min(...tasks.map((t) => t.trials));
  const points: PassKPoint[] = [];
  for (let k = 1; k <= maxK; k++) {
    let at = 0;
    let hat = 0;
    for (const t of tasks) {
      at += passAtKOfTask(t.trials, t.successes, k);
      hat += passHatKOfTask(t.trials, t.successes, k);
    }
    points.push({ k, passAtK: at / tasks.length, passHatK: hat / tasks.length });
  }
  return points;
}
