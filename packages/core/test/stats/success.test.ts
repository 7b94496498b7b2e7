import { describe, expect, it } from "vitest";
import {
  bootstrapIterationsFor,
  defaultBootstrapIterations,
  defaultBootstrapSeed,
  maxBootstrapDraws,
  minBootstrapIterations,
  minBootstrapTasks,
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
    // Two tasks are too few for a bootstrap (minBootstrapTasks): Wilson's interval over the 2 tasks at p = 0.25, z = 1.96.
    expect(got.successRate).toMatchObject({ estimate: 0.25, tasks: 2, runs: 3, seed: defaultBootstrapSeed, confidence: 0.95, iterations: 0, method: "wilson" });
    expect(got.successRate!.lower).toBeCloseTo(0.026677, 5);
    expect(got.successRate!.upper).toBeCloseTo(0.802133, 5);
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

  it("from minBootstrapTasks tasks on, is the interval core's successRateCI gives for the same runs and seed", () => {
    expect(minBootstrapTasks).toBe(10);
    const runs = Array.from({ length: 12 }, (_, i) => [
      { taskId: `t${i}`, success: i % 3 !== 0 },
      { taskId: `t${i}`, success: i % 4 === 0 },
    ]).flat();
    const tasks = Array.from({ length: 12 }, (_, i) => ({ taskId: `t${i}`, runs: 2, successRate: ((i % 3 !== 0 ? 1 : 0) + (i % 4 === 0 ? 1 : 0)) / 2 }));
    const got = successMetricsOf(inputs(tasks), { seed: 7, confidence: 0.8 });
    const expected = successRateCI(runs, { rng: mulberry32(7), confidence: 0.8 })!;
    expect(got.successRate).toMatchObject({
      seed: 7,
      confidence: 0.8,
      lower: expected.lower,
      upper: expected.upper,
      estimate: expected.estimate,
      method: "bootstrap",
    });
    expect(got.successRate!.upper).toBeGreaterThan(got.successRate!.lower);
  });

  it("never looks certain with few tasks: 2 runs of 1 task, or one task that always succeeded; no task gives no rate", () => {
    // One task, one success and one failure: a bootstrap over tasks would give [0.5, 0.5].
    const one = successMetricsOf({ ...inputs([{ taskId: "A", runs: 2, successRate: 0.5 }]), runs: 2 }).successRate!;
    expect(one).toMatchObject({ estimate: 0.5, tasks: 1, runs: 2, method: "wilson" });
    expect(one.lower).toBeCloseTo(0.054621, 5);
    expect(one.upper).toBeCloseTo(0.945379, 5);
    const always = successMetricsOf(inputs([{ taskId: "A", runs: 4, successRate: 1 }])).successRate!;
    expect(always.upper).toBe(1);
    expect(always.lower).toBeCloseTo(0.206549, 5);
    // The level is honoured: 80 % over two tasks is narrower than 95 %.
    const eighty = successMetricsOf(
      inputs([
        { taskId: "A", runs: 1, successRate: 1 },
        { taskId: "B", runs: 1, successRate: 0 },
      ]),
      { confidence: 0.8 },
    ).successRate!;
    expect(eighty.lower).toBeCloseTo(0.164252, 5);
    expect(eighty.upper).toBeCloseTo(0.835748, 5);
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
