/**
 * A variant against the baseline, paired on the tasks both ran
 * (docs/experiments.md §4): quality and cost differences, token and cost
 * multipliers, and the cost-adjusted utility CAU = ΔV / ΔC, always together.
 */
import { bootstrapOverTasks, includesZero, meanAt, type Interval, type IntervalOptions } from "./interval.ts";

/** One task's means over its trials, for one variant. Cost null when a run of the task was unpriced. */
export interface TaskMeans {
  taskId: string;
  value: number;
  tokens: number;
  costUsd: number | null;
}

export type CauStatus = "estimable" | "not_estimable" | "dominated";

export interface Cau {
  status: CauStatus;
  /** ΔV/ΔC in value per extra USD; null unless the cost difference is positive beyond noise. */
  value: Interval | null;
  /** For "dominated": which side is dominated (no better and no cheaper than the other). */
  dominated: "variant" | "baseline" | null;
  /** Why the status is what it is, in one sentence. */
  reason: string;
}

export interface PairedComparison {
  /** Tasks both the variant and the baseline ran; every figure below is over these. */
  pairedTasks: string[];
  /** mean ΔV over paired tasks. */
  qualityDifference: Interval | null;
  /** The quality interval holds 0: the difference is inside the run-to-run spread. */
  qualityWithinNoise: boolean | null;
  /** mean ΔC (USD) over the paired tasks where both sides are priced. */
  costDifference: Interval | null;
  pricedTasks: number;
  tokenMultiplier: Interval | null;
  costMultiplier: Interval | null;
  cau: Cau;
}

/** Pairs `variant` with `baseline` by task id and computes every figure with its interval. */
export function comparePaired(variant: TaskMeans[], baseline: TaskMeans[], options: IntervalOptions): PairedComparison {
  const base = new Map(baseline.map((t) => [t.taskId, t]));
  const pairs = variant
    .filter((t) => base.has(t.taskId))
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0))
    .map((t) => ({ v: t, b: base.get(t.taskId) as TaskMeans }));
  const dv = pairs.map((p) => p.v.value - p.b.value);
  const vTokens = pairs.map((p) => p.v.tokens);
  const bTokens = pairs.map((p) => p.b.tokens);
  const priced = pairs.filter((p) => p.v.costUsd !== null && p.b.costUsd !== null);
  const pdv = priced.map((p) => p.v.value - p.b.value);
  const vCost = priced.map((p) => p.v.costUsd as number);
  const bCost = priced.map((p) => p.b.costUsd as number);
  const dc = priced.map((p, i) => (vCost[i] as number) - (bCost[i] as number));

  const qualityDifference = bootstrapOverTasks(dv.length, (ix) => meanAt(dv, ix), options);
  const costDifference = bootstrapOverTasks(dc.length, (ix) => meanAt(dc, ix), options);
  const ratio = (num: number[], den: number[]) => (ix: number[]) => {
    const d = meanAt(den, ix);
    return d > 0 ? meanAt(num, ix) / d : null;
  };
  const tokenMultiplier = bootstrapOverTasks(pairs.length, ratio(vTokens, bTokens), options);
  const costMultiplier = bootstrapOverTasks(priced.length, ratio(vCost, bCost), options);
  const cauOf = (ix: number[]) => {
    const c = meanAt(dc, ix);
    return c > 0 ? meanAt(pdv, ix) / c : null;
  };
  const cau = cauFrom(pdv, costDifference, () => bootstrapOverTasks(priced.length, cauOf, options));
  return {
    pairedTasks: pairs.map((p) => p.v.taskId),
    qualityDifference,
    qualityWithinNoise: qualityDifference === null ? null : includesZero(qualityDifference),
    costDifference,
    pricedTasks: priced.length,
    tokenMultiplier,
    costMultiplier,
    cau,
  };
}

function cauFrom(pricedDv: number[], costDifference: Interval | null, interval: () => Interval | null): Cau {
  if (costDifference === null) {
    return { status: "not_estimable", value: null, dominated: null, reason: "no task has a priced run on both sides" };
  }
  const dv = pricedDv.reduce((s, x) => s + x, 0) / pricedDv.length;
  if (includesZero(costDifference)) {
    return {
      status: "not_estimable",
      value: null,
      dominated: null,
      reason: "the cost difference's interval includes 0, so the ratio is unbounded",
    };
  }
  if (costDifference.upper < 0) {
    return dv >= 0
      ? { status: "dominated", value: null, dominated: "baseline", reason: "the variant costs less and is at least as good: no cost to trade" }
      : { status: "not_estimable", value: null, dominated: null, reason: "the variant costs less and is worse: a saving, not a cost per quality" };
  }
  const value = interval();
  if (dv <= 0) return { status: "dominated", value, dominated: "variant", reason: "the variant costs more and is no better" };
  return { status: "estimable", value, dominated: null, reason: "the variant costs more beyond noise" };
}

/** CAU of two summary figures, the formula alone: (V_multi − V_single) / (C_multi − C_single); null unless ΔC > 0. */
export function costAdjustedUtility(vMulti: number, vSingle: number, cMulti: number, cSingle: number): number | null {
  const dc = cMulti - cSingle;
  return dc > 0 ? (vMulti - vSingle) / dc : null;
}
