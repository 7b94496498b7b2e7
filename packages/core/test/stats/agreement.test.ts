import { describe, expect, it } from "vitest";
import { binaryAgreement, defaultValidationBar, validationVerdict, type LabelledPrediction } from "../../src/stats/index.ts";

/** tp, fp, fn, tn pairs in that order. */
function table(tp: number, fp: number, fn: number, tn: number): LabelledPrediction[] {
  return [
    ...Array.from({ length: tp }, () => ({ label: true, predicted: true })),
    ...Array.from({ length: fp }, () => ({ label: false, predicted: true })),
    ...Array.from({ length: fn }, () => ({ label: true, predicted: false })),
    ...Array.from({ length: tn }, () => ({ label: false, predicted: false })),
  ];
}

describe("binaryAgreement (docs/metrics.md §12)", () => {
  it("computes kappa, precision and recall of a 2×2 table by hand", () => {
    // tp 20, fp 5, fn 10, tn 15; n = 50.
    // pₒ = (20 + 15) / 50 = .7
    // rater yes = 25, label yes = 30; rater no = 25, label no = 20
    // pₑ = (25 × 30 + 25 × 20) / 50² = (750 + 500) / 2500 = .5
    // κ = (.7 − .5) / (1 − .5) = .4
    // precision = 20 / 25 = .8; recall = 20 / 30 = 2/3
    const a = binaryAgreement(table(20, 5, 10, 15));
    expect(a).toMatchObject({ n: 50, truePositives: 20, falsePositives: 5, falseNegatives: 10, trueNegatives: 15, kappaReason: null });
    expect(a.observedAgreement).toBeCloseTo(0.7, 12);
    expect(a.kappa).toBeCloseTo(0.4, 12);
    expect(a.precision).toBeCloseTo(0.8, 12);
    expect(a.recall).toBeCloseTo(2 / 3, 12);
  });

  it("gives 1 for perfect agreement and a negative kappa for systematic disagreement", () => {
    // tp 3, tn 2: pₒ = 1, pₑ = (3×3 + 2×2) / 25 = 13/25, κ = (1 − 13/25) / (12/25) = 1
    expect(binaryAgreement(table(3, 0, 0, 2)).kappa).toBeCloseTo(1, 12);
    // fp 2, fn 2: pₒ = 0; rater yes 2, label yes 2, rater no 2, label no 2: pₑ = (2×2 + 2×2)/16 = .5; κ = (0 − .5)/.5 = −1
    const opposite = binaryAgreement(table(0, 2, 2, 0));
    expect(opposite.kappa).toBeCloseTo(-1, 12);
    // no true positive, but the rater said yes twice and labels say yes twice: both known, both 0
    expect(opposite.precision).toBe(0);
    expect(opposite.recall).toBe(0);
  });

  it("keeps kappa defined when only the labels are of one class", () => {
    // all labels present: tp 3, fn 1; pₒ = 3/4; rater yes 3, label yes 4; rater no 1, label no 0
    // pₑ = (3×4 + 1×0)/16 = 12/16 = .75; κ = (.75 − .75)/(.25) = 0
    const a = binaryAgreement(table(3, 0, 1, 0));
    expect(a.kappa).toBeCloseTo(0, 12);
    expect(a.precision).toBe(1);
    expect(a.recall).toBeCloseTo(0.75, 12);
  });

  it("says why kappa is unknown instead of returning NaN", () => {
    // every label and every prediction absent: pₑ = (0 + 5×5)/25 = 1
    const allAbsent = binaryAgreement(table(0, 0, 0, 5));
    expect(allAbsent.kappa).toBeNull();
    expect(allAbsent.kappaReason).toMatch(/every label and every prediction says absent/);
    expect(allAbsent.observedAgreement).toBe(1);
    expect(allAbsent.precision).toBeNull(); // the rater never said yes
    expect(allAbsent.recall).toBeNull(); // no label says yes
    const allPresent = binaryAgreement(table(4, 0, 0, 0));
    expect(allPresent.kappa).toBeNull();
    expect(allPresent.kappaReason).toMatch(/says present/);
    expect(allPresent.precision).toBe(1);
    const none = binaryAgreement([]);
    expect(none).toMatchObject({ n: 0, kappa: null, kappaReason: "no labelled trace", observedAgreement: null, precision: null, recall: null });
  });
});

describe("validationVerdict", () => {
  const bar = defaultValidationBar;
  it("validates a kappa at the bar on enough labels, and says why otherwise", () => {
    expect(bar).toEqual({ kappaBar: 0.6, minLabels: 20 });
    expect(validationVerdict({ n: 20, kappa: 0.6, kappaReason: null }, bar)).toEqual({ validated: true, reason: null });
    expect(validationVerdict({ n: 19, kappa: 0.9, kappaReason: null }, bar)).toEqual({ validated: false, reason: "19 labelled traces; at least 20 needed" });
    expect(validationVerdict({ n: 40, kappa: 0.4, kappaReason: null }, bar)).toEqual({ validated: false, reason: "kappa 0.400 is under the bar of 0.6" });
    expect(validationVerdict({ n: 40, kappa: null, kappaReason: "x" }, bar)).toEqual({ validated: false, reason: "kappa unknown: x" });
  });
});
