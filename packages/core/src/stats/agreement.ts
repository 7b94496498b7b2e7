/**
 * Agreement of a rater (a code detector, an LLM judge) with human labels on a
 * yes/no question (docs/metrics.md §12): the 2×2 table, Cohen's kappa,
 * precision and recall. A figure that cannot be computed is null with a
 * reason, never NaN.
 */
import { ratioOrNull } from "./ratio.ts";

/** One labelled trace: what the person said and what the rater said. */
export interface LabelledPrediction {
  label: boolean;
  predicted: boolean;
}

export interface BinaryAgreement {
  n: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
  /** (tp + tn) / n; null when n = 0. */
  observedAgreement: number | null;
  /** (pₒ − pₑ) / (1 − pₑ); null when n = 0 or pₑ = 1 (labels and predictions all one and the same class). */
  kappa: number | null;
  /** Why kappa is null; null when it is known. */
  kappaReason: string | null;
  /** tp / (tp + fp); null when the rater said yes nowhere. */
  precision: number | null;
  /** tp / (tp + fn); null when no label says yes. */
  recall: number | null;
}

export function binaryAgreement(pairs: readonly LabelledPrediction[]): BinaryAgreement {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const p of pairs) {
    if (p.label && p.predicted) tp++;
    else if (!p.label && p.predicted) fp++;
    else if (p.label && !p.predicted) fn++;
    else tn++;
  }
  const n = pairs.length;
  const base = { n, truePositives: tp, falsePositives: fp, falseNegatives: fn, trueNegatives: tn };
  const precision = ratioOrNull(tp, tp + fp);
  const recall = ratioOrNull(tp, tp + fn);
  if (n === 0) {
    return { ...base, observedAgreement: null, kappa: null, kappaReason: "no labelled trace", precision, recall };
  }
  const observed = (tp + tn) / n;
  // Chance agreement: both say yes by chance + both say no by chance, from each one's marginals.
  const expected = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n);
  if (expected === 1) {
    const cls = tp > 0 ? "present" : "absent";
    return {
      ...base,
      observedAgreement: observed,
      kappa: null,
      kappaReason: `every label and every prediction says ${cls}: chance agreement is 1, so kappa is undefined (label traces where the mode is ${cls === "present" ? "absent" : "present"})`,
      precision,
      recall,
    };
  }
  return { ...base, observedAgreement: observed, kappa: (observed - expected) / (1 - expected), kappaReason: null, precision, recall };
}

export interface ValidationBar {
  /** Lowest kappa at which a rater counts as validated for a mode (default .6). */
  kappaBar: number;
  /** Fewest labelled traces a kappa is trusted on (default 20). */
  minLabels: number;
}

export const defaultValidationBar: ValidationBar = { kappaBar: 0.6, minLabels: 20 };

/** Validated when at least `minLabels` labels back a kappa of at least `kappaBar`; otherwise the reason. */
export function validationVerdict(a: Pick<BinaryAgreement, "n" | "kappa" | "kappaReason">, bar: ValidationBar): { validated: boolean; reason: string | null } {
  if (a.n < bar.minLabels) return { validated: false, reason: `${a.n} labelled trace${a.n === 1 ? "" : "s"}; at least ${bar.minLabels} needed` };
  if (a.kappa === null) return { validated: false, reason: `kappa unknown: ${a.kappaReason ?? "not computable"}` };
  if (a.kappa < bar.kappaBar) return { validated: false, reason: `kappa ${a.kappa.toFixed(3)} is under the bar of ${bar.kappaBar}` };
  return { validated: true, reason: null };
}
