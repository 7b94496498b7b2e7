import { describe, expect, it } from "vitest";
import { bootstrapMeanCI, mulberry32, quantile, successRateCI } from "../../src/stats/index.ts";

describe("mulberry32", () => {
  it("is deterministic per seed and stays in [0, 1)", () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(43)()).not.toBe(xs[0]);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });
});

describe("bootstrap over tasks", () => {
  it("interpolates quantiles", () => {
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([1, 2, 3], 0.5)).toBe(2);
  });

  it("gives a degenerate interval when every task has the same value", () => {
    expect(bootstrapMeanCI([1, 1, 1], { rng: mulberry32(1), iterations: 200 })).toMatchObject({ estimate: 1, lower: 1, upper: 1 });
    expect(bootstrapMeanCI([], { rng: mulberry32(1) })).toBeNull();
  });

  it("averages runs within a task first, and resamples tasks, not runs", () => {
    // task a: 10 runs all pass; task b: 1 run fails. Per run: 10/11; per task: 0.5.
    const runs = [...Array.from({ length: 10 }, () => ({ taskId: "a", success: true })), { taskId: "b", success: false }];
    const r = successRateCI(runs, { rng: mulberry32(7), iterations: 4000 });
    expect(r).not.toBeNull();
    expect(r!.estimate).toBe(0.5);
    expect(r!.tasks).toBe(2);
    expect(r!.runs).toBe(11);
    // resampling 2 tasks: means 0, .5, 1 with probabilities 1/4, 1/2, 1/4
    expect(r!.lower).toBe(0);
    expect(r!.upper).toBe(1);
  });

  it("is reproducible for a seed and narrows with more tasks", () => {
    const runs = (n: number) => Array.from({ length: n }, (_, i) => ({ taskId: `t${i}`, success: i % 4 !== 0 }));
    const a = successRateCI(runs(40), { rng: mulberry32(3) });
    const b = successRateCI([...runs(40)].reverse(), { rng: mulberry32(3) });
    expect(a).toEqual(b);
    expect(a!.estimate).toBe(0.75);
    expect(a!.lower).toBeLessThan(0.75);
    expect(a!.upper).toBeGreaterThan(0.75);
    const wide = successRateCI(runs(8), { rng: mulberry32(3) })!;
    const narrow = successRateCI(runs(400), { rng: mulberry32(3) })!;
    expect(narrow.upper - narrow.lower).toBeLessThan(wide.upper - wide.lower);
  });
});
