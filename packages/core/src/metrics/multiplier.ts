/**
 * Token and cost multiplier against a single-agent baseline (docs/metrics.md §4).
 * Baseline, in order: a baseline run of the same task, a configured figure,
 * else unknown (never guessed).
 */

export interface BaselineFigures {
  tokens: number | null;
  costUsd: number | null;
}

export interface BaselineInputs {
  /** Figures of baseline run(s) of the same task id (see baselineFromRuns). */
  baselineRun?: BaselineFigures | null;
  /** Configured baseline figure for the task or service. */
  configured?: BaselineFigures | null;
}

export type BaselineSource = "baseline_run" | "configured" | "unknown";

export interface MultiplierResult {
  /** observed / baseline; null when either is unknown. */
  value: number | null;
  observed: number | null;
  baseline: number | null;
  source: BaselineSource;
}

export interface MultiplierScore {
  tokens: MultiplierResult;
  cost: MultiplierResult;
}

function pick(field: keyof BaselineFigures, inputs: BaselineInputs): { baseline: number | null; source: BaselineSource } {
  const run = inputs.baselineRun?.[field];
  if (run !== undefined && run !== null && run > 0) return { baseline: run, source: "baseline_run" };
  const configured = inputs.configured?.[field];
  if (configured !== undefined && configured !== null && configured > 0) return { baseline: configured, source: "configured" };
  return { baseline: null, source: "unknown" };
}

export function multiplierFor(observed: number | null, field: keyof BaselineFigures, inputs: BaselineInputs): MultiplierResult {
  const { baseline, source } = pick(field, inputs);
  const value = observed === null || baseline === null ? null : observed / baseline;
  return { value, observed, baseline, source };
}

/** observed.costUsd should be a complete cost (CostBreakdown.totalUsd), null when some tokens are unpriced. */
export function scoreMultipliers(observed: { tokens: number; costUsd: number | null }, inputs: BaselineInputs): MultiplierScore {
  return { tokens: multiplierFor(observed.tokens, "tokens", inputs), cost: multiplierFor(observed.costUsd, "costUsd", inputs) };
}

export interface RunSummary {
  taskId: string | null;
  isBaseline: boolean | null;
  tokens: number;
  costUsd: number | null;
}

/** Mean tokens and cost over the baseline runs of one task; null when there is none. */
export function baselineFromRuns(runs: RunSummary[], taskId: string): BaselineFigures | null {
  const baseline = runs.filter((r) => r.taskId === taskId && r.isBaseline === true);
  if (baseline.length === 0) return null;
  const tokens = baseline.reduce((n, r) => n + r.tokens, 0) / baseline.length;
  const priced = baseline.filter((r) => r.costUsd !== null);
  // A cost mean over only some runs would be biased: require all runs priced.
  const costUsd = priced.length === baseline.length ? priced.reduce((n, r) => n + (r.costUsd ?? 0), 0) / baseline.length : null;
  return { tokens, costUsd };
}
