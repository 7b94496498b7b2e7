import { describe, expect, it } from "vitest";
import { bootstrapOverTasks, comparePaired, costAdjustedUtility, meanAt, type TaskMeans } from "../../src/experiments/index.ts";
import { mulberry32 } from "../../src/stats/index.ts";

const opts = (seed = 1) => ({ rng: mulberry32(seed), iterations: 1000, confidence: 0.95 });
const tasks = (n: number, f: (i: number) => Omit<TaskMeans, "taskId">): TaskMeans[] =>
  Array.from({ length: n }, (_, i) => ({ taskId: `t${String(i).padStart(3, "0")}`, ...f(i) }));

describe("cost-adjusted utility", () => {
  it("the worked example: .90 vs .75 at 14 extra units of cost is about .011", () => {
    expect(costAdjustedUtility(0.9, 0.75, 15, 1)).toBeCloseTo(0.15 / 14, 12);
    expect(costAdjustedUtility(0.9, 0.75, 1, 1)).toBeNull();
  });

  it("is estimable, with an interval, when the variant costs more beyond noise and is better", () => {
    const variant = tasks(30, (i) => ({ value: i % 10 < 9 ? 1 : 0, tokens: 3000, costUsd: 15 + (i % 3) }));
    const baseline = tasks(30, (i) => ({ value: i % 4 < 3 ? 1 : 0, tokens: 1000, costUsd: 1 + (i % 3) }));
    const r = comparePaired(variant, baseline, opts());
    expect(r.pairedTasks).toHaveLength(30);
    expect(r.costDifference!.estimate).toBeCloseTo(14, 10);
    expect(r.cau.status).toBe("estimable");
    expect(r.cau.value!.estimate).toBeCloseTo(r.qualityDifference!.estimate / 14, 10);
    expect(r.cau.value!.lower).toBeLessThanOrEqual(r.cau.value!.estimate);
    expect(r.tokenMultiplier!.estimate).toBe(3);
    expect(r.tokenMultiplier!.lower).toBe(3);
    expect(r.costMultiplier!.estimate).toBeCloseTo(16 / 2, 10);
    expect(r.qualityDifference!.fewTasks).toBe(false);
  });

  it("is not estimable when the cost difference's interval crosses 0", () => {
    const variant = tasks(20, (i) => ({ value: 1, tokens: 10, costUsd: i % 2 === 0 ? 3 : 0 }));
    const baseline = tasks(20, () => ({ value: 0.5, tokens: 10, costUsd: 1.4 }));
    const r = comparePaired(variant, baseline, opts());
    expect(r.costDifference!.lower).toBeLessThan(0);
    expect(r.costDifference!.upper).toBeGreaterThan(0);
    expect(r.cau).toMatchObject({ status: "not_estimable", value: null });
    expect(r.cau.reason).toMatch(/includes 0/);
  });

  it("marks the baseline dominated when the variant is cheaper and no worse, and the variant when it costs more for nothing", () => {
    const cheapGood = comparePaired(
      tasks(15, () => ({ value: 0.9, tokens: 5, costUsd: 1 })),
      tasks(15, () => ({ value: 0.8, tokens: 10, costUsd: 2 })),
      opts(),
    );
    expect(cheapGood.cau).toMatchObject({ status: "dominated", dominated: "baseline" });
    const dearBad = comparePaired(
      tasks(15, () => ({ value: 0.7, tokens: 50, costUsd: 5 })),
      tasks(15, () => ({ value: 0.8, tokens: 10, costUsd: 2 })),
      opts(),
    );
    expect(dearBad.cau).toMatchObject({ status: "dominated", dominated: "variant" });
    expect(dearBad.cau.value!.estimate).toBeCloseTo(-0.1 / 3, 10);
  });

  it("labels a quality difference inside the run-to-run spread, and flags an interval over few tasks", () => {
    const r = comparePaired(
      tasks(6, (i) => ({ value: i % 2, tokens: 1, costUsd: null })),
      tasks(6, (i) => ({ value: (i + 1) % 2, tokens: 1, costUsd: null })),
      opts(),
    );
    expect(r.qualityWithinNoise).toBe(true);
    expect(r.qualityDifference!.fewTasks).toBe(true);
    expect(r.pricedTasks).toBe(0);
    expect(r.costDifference).toBeNull();
    expect(r.cau).toMatchObject({ status: "not_estimable", reason: "no task has a priced run on both sides" });
  });

  it("pairs on task id: tasks only one side ran are left out", () => {
    const r = comparePaired(
      [
        { taskId: "a", value: 1, tokens: 2, costUsd: 2 },
        { taskId: "b", value: 1, tokens: 2, costUsd: 2 },
      ],
      [
        { taskId: "b", value: 0, tokens: 1, costUsd: 1 },
        { taskId: "c", value: 0, tokens: 1, costUsd: 1 },
      ],
      opts(),
    );
    expect(r.pairedTasks).toEqual(["b"]);
    expect(r.qualityDifference!.estimate).toBe(1);
  });
});

describe("coverage of the bootstrap intervals", () => {
  it("95% intervals over tasks cover the true success rate in 90-99% of 500 simulated data sets", () => {
    const rng = mulberry32(2024);
    // Tasks have their own success probability (uniform on [0.2, 1]); the truth is the mean over tasks: 0.6.
    const truth = 0.6;
    let covered = 0;
    for (let d = 0; d < 500; d++) {
      const perTask = Array.from({ length: 40 }, () => {
        const p = 0.2 + 0.8 * rng();
        let s = 0;
        for (let t = 0; t < 4; t++) s += rng() < p ? 1 : 0;
        return s / 4;
      });
      const ci = bootstrapOverTasks(perTask.length, (ix) => meanAt(perTask, ix), { rng, iterations: 400, confidence: 0.95 });
      if (ci!.lower <= truth && truth <= ci!.upper) covered++;
    }
    expect(covered / 500).toBeGreaterThanOrEqual(0.9);
    expect(covered / 500).toBeLessThanOrEqual(0.99);
  });

  it("paired quality-difference intervals cover the true difference in 90-99% of 500 data sets", () => {
    const rng = mulberry32(77);
    const truth = 0.15; // variant success probability = baseline's + 0.15 on every task
    let covered = 0;
    for (let d = 0; d < 500; d++) {
      const variant: TaskMeans[] = [];
      const baseline: TaskMeans[] = [];
      for (let i = 0; i < 40; i++) {
        const p = 0.1 + 0.7 * rng();
        const draw = (q: number) => {
          let s = 0;
          for (let t = 0; t < 3; t++) s += rng() < q ? 1 : 0;
          return s / 3;
        };
        variant.push({ taskId: `t${i}`, value: draw(p + truth), tokens: 1, costUsd: null });
        baseline.push({ taskId: `t${i}`, value: draw(p), tokens: 1, costUsd: null });
      }
      const q = comparePaired(variant, baseline, { rng, iterations: 400, confidence: 0.95 }).qualityDifference!;
      if (q.lower <= truth && truth <= q.upper) covered++;
    }
    expect(covered / 500).toBeGreaterThanOrEqual(0.9);
    expect(covered / 500).toBeLessThanOrEqual(0.99);
  });
});
