import { describe, expect, it } from "vitest";
import { fitLogistic, horizonMinutes, timeHorizon, type HorizonTask } from "../../src/experiments/index.ts";
import { mulberry32 } from "../../src/stats/index.ts";

const opts = (seed = 9) => ({ rng: mulberry32(seed), iterations: 500, confidence: 0.95 });

/** 120 tasks log-uniform from 1 minute to 16 hours, 8 trials each, success drawn from σ(b1·(log2 t − log2 60)). */
function simulate(seed: number, slope = -0.9): HorizonTask[] {
  const rng = mulberry32(seed);
  const maxLog = Math.log2(16 * 60);
  return Array.from({ length: 120 }, (_, i) => {
    const minutes = 2 ** ((maxLog * i) / 119);
    const p = 1 / (1 + Math.exp(-slope * (Math.log2(minutes) - Math.log2(60))));
    let successes = 0;
    for (let t = 0; t < 8; t++) successes += rng() < p ? 1 : 0;
    return { taskId: `task-${i}`, family: `family-${i % 15}`, humanMinutes: minutes, trials: 8, successes };
  });
}

describe("time horizon", () => {
  it("recovers a known 50% horizon of 60 minutes within its interval", () => {
    const r = timeHorizon(simulate(1234), opts());
    if (r.status !== "fitted") throw new Error(r.message);
    expect(r.tasks).toBe(120);
    expect(r.families).toBe(15);
    expect(r.h50.lower!).toBeLessThanOrEqual(60);
    expect(r.h50.upper!).toBeGreaterThanOrEqual(60);
    expect(r.h50.minutes).toBeGreaterThan(30);
    expect(r.h50.minutes).toBeLessThan(120);
    // the 80% horizon is shorter: 2^(log2 60 − logit(.8)/0.9) ≈ 12.5 minutes
    const true80 = 2 ** (Math.log2(60) - Math.log(4) / 0.9);
    expect(r.h80.minutes).toBeLessThan(r.h50.minutes);
    expect(r.h80.lower!).toBeLessThanOrEqual(true80);
    expect(r.h80.upper!).toBeGreaterThanOrEqual(true80);
    expect(r.h50.extrapolated).toBe(false);
    expect(r.iterations + r.failedResamples).toBe(500);
  });

  it("solves the maximum-likelihood equations exactly on grouped data", () => {
    // Symmetric data around x=3: the fit's 50% point is at 2^3 = 8 minutes.
    const fit = fitLogistic([
      { x: 1, trials: 10, successes: 9 },
      { x: 2, trials: 10, successes: 7 },
      { x: 4, trials: 10, successes: 3 },
      { x: 5, trials: 10, successes: 1 },
    ]);
    expect(fit).not.toBeNull();
    expect(horizonMinutes(fit!, 0.5)).toBeCloseTo(8, 8);
    expect(fit!.slope).toBeLessThan(0);
  });

  it("refuses degenerate data, saying why", () => {
    const base = simulate(5);
    expect(
      timeHorizon(
        base.map((t) => ({ ...t, successes: t.trials })),
        opts(),
      ),
    ).toMatchObject({ status: "refused", reason: "all_succeeded" });
    expect(
      timeHorizon(
        base.map((t) => ({ ...t, successes: 0 })),
        opts(),
      ),
    ).toMatchObject({ status: "refused", reason: "all_failed" });
    expect(timeHorizon(base.slice(0, 9), opts())).toMatchObject({ status: "refused", reason: "too_few_tasks" });
    expect(
      timeHorizon(
        base.map((t, i) => ({ ...t, humanMinutes: 30 + (i % 10) })),
        opts(),
      ),
    ).toMatchObject({ status: "refused", reason: "too_narrow_range" });
    // short tasks all pass, long ones all fail: perfectly separated, no finite slope
    const separated = base.map((t) => ({ ...t, successes: t.humanMinutes < 60 ? t.trials : 0 }));
    expect(timeHorizon(separated, opts())).toMatchObject({ status: "refused", reason: "no_finite_fit" });
    const rising = simulate(5, 0.9);
    expect(timeHorizon(rising, opts())).toMatchObject({ status: "refused", reason: "success_does_not_fall_with_length" });
    const noMinutes = base.map((t) => ({ ...t, humanMinutes: 0 }));
    expect(timeHorizon(noMinutes, opts())).toMatchObject({ status: "refused", reason: "too_few_tasks", tasks: 0 });
  });
});
