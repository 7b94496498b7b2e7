import { describe, expect, it } from "vitest";
import {
  bootstrapIterationsFor,
  defaultBootstrapIterations,
  defaultBootstrapSeed,
  maxBootstrapDraws,
  minBootstrapIterations,
  mulberry32,
  ratioOrNull,
  successMetricsOf,
  successRateCI,
  type SuccessInputs,
} from "../../src/stats/index.ts";

const milestones: SuccessInputs["milestones"] = {
  traces: 3,
  meanPartialCredit: 0.5,
  fullSuccessRate: 1 / 3,
  meanFurthestIndex: 2,
  perMilestone: [
    { id: "m1", traces: 3, passed: 2 },
    { id: "m2", traces: 3, passed: 0 },
  ],
};

function inputs(tasks: SuccessInputs["tasks"]): SuccessInputs {
  return { tasks, runs: 3, successfulRuns: 1, runsWithoutOutcome: 1, baselineRuns: 2, milestones };
}

describe("bootstrapIterationsFor", () => {
  it("keeps the requested count while iterations × tasks stays within maxBootstrapDraws", () => {
    expect(maxBootstrapDraws).toBe(20_000_000);
    expect(bootstrapIterationsFor(0)).toBe(defaultBootstrapIterations);
    expect(bootstrapIterationsFor(1)).toBe(2000);
    expect(bootstrapIterationsFor(10_000)).toBe(2000); // 2000 × 10,000 = 20,000,000 draws exactly
    expect(bootstrapIterationsFor(1, 5000)).toBe(5000);
  });

  it("shrinks past the bound (floor of draws / tasks) and never goes below minBootstrapIterations", () => {
    expect(bootstrapIterationsFor(10_001)).toBe(1999); // floor(20,000,000 / 10,001)
    expect(bootstrapIterationsFor(40_000)).toBe(500);
    expect(bootstrapIterationsFor(100_000)).toBe(minBootstrapIterations);
    expect(bootstrapIterationsFor(1_000_000)).toBe(200); // 20 per the bound, floored at 200
    expect(bootstrapIterationsFor(3, 50)).toBe(200);
  });
});

describe("successMetricsOf", () => {
  it("a hand-computed case: mean over tasks, counts passed through, pass rates, the seed", () => {
    // Task A: 1 of 2 runs succeeded (0.5); task B: its one run failed (0). Mean over tasks 0.25 (per run it would be 1/3).
    const got = successMetricsOf(
      inputs([
        { taskId: "A", runs: 2, successRate: 0.5 },
        { taskId: "B", runs: 1, successRate: 0 },
      ]),
    );
    expect(got.successRate).toMatchObject({ estimate: 0.25, tasks: 2, runs: 3, seed: defaultBootstrapSeed, confidence: 0.95, iterations: 2000 });
    // A resample of two tasks is AA (0.5), AB/BA (0.25) or BB (0), BB and AA each a quarter of the 2000: the 2.5 %
    // and 97.5 % quantiles fall well inside their runs, so the bounds are exactly 0 and 0.5.
    expect(got.successRate!.lower).toBe(0);
    expect(got.successRate!.upper).toBe(0.5);
    expect(got).toMatchObject({ runs: 3, successfulRuns: 1, runsWithoutOutcome: 1, baselineRuns: 2 });
    expect(got.milestones).toEqual({
      traces: 3,
      meanPartialCredit: 0.5,
      fullSuccessRate: 1 / 3,
      meanFurthestIndex: 2,
      perMilestone: [
        { id: "m1", traces: 3, passed: 2, passRate: 2 / 3 },
        { id: "m2", traces: 3, passed: 0, passRate: 0 },
      ],
    });
  });

  it("is the interval core's successRateCI gives for the same runs and seed", () => {
    const got = successMetricsOf(
      inputs([
        { taskId: "A", runs: 2, successRate: 0.5 },
        { taskId: "B", runs: 1, successRate: 0 },
        { taskId: "C", runs: 1, successRate: 1 },
      ]),
      { seed: 7, confidence: 0.8 },
    );
    const expected = successRateCI(
      [
        { taskId: "A", success: true },
        { taskId: "A", success: false },
        { taskId: "B", success: false },
        { taskId: "C", success: true },
      ],
      { rng: mulberry32(7), confidence: 0.8 },
    )!;
    expect(got.successRate).toMatchObject({ seed: 7, confidence: 0.8, lower: expected.lower, upper: expected.upper, estimate: expected.estimate });
  });

  it("one task gives a degenerate interval; no task gives no rate", () => {
    expect(successMetricsOf(inputs([{ taskId: "A", runs: 4, successRate: 0.75 }])).successRate).toMatchObject({ estimate: 0.75, lower: 0.75, upper: 0.75 });
    expect(successMetricsOf(inputs([])).successRate).toBeNull();
  });

  it("bounds the resamples by the number of tasks", () => {
    const tasks = Array.from({ length: 40_000 }, (_, i) => ({ taskId: `t${i}`, runs: 1, successRate: i % 2 }));
    const got = successMetricsOf(inputs(tasks), { iterations: 5000 });
    expect(got.successRate).toMatchObject({ iterations: 500, tasks: 40_000, estimate: 0.5 });
  });
});

describe("ratioOrNull", () => {
  it("divides, and has no ratio over a zero whole", () => {
    expect(ratioOrNull(1, 4)).toBe(0.25);
    expect(ratioOrNull(0, 4)).toBe(0);
    expect(ratioOrNull(3, 0)).toBeNull();
  });
});
