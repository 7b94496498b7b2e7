import { describe, expect, it } from "vitest";
import {
  ablationVariants,
  coalitionKey,
  coalitionLookup,
  exactShapley,
  leaveOneOut,
  monteCarloShapley,
  orderingCoalitions,
  paretoFrontier,
  sampleOrderings,
  type CoalitionValue,
} from "../../src/experiments/index.ts";
import { mulberry32 } from "../../src/stats/index.ts";

const measured = (entries: [string[], number][]) => coalitionLookup(new Map(entries.map(([s, v]) => [coalitionKey(s), v])));

describe("exact Shapley", () => {
  it("the two-agent example: φA = 0.6, φB = 0.4", () => {
    const r = exactShapley(
      ["A", "B"],
      measured([
        [["A"], 0.4],
        [["B"], 0.2],
        [["A", "B"], 1.0],
      ]),
    );
    expect(r.status).toBe("computed");
    if (r.status !== "computed") return;
    expect(r.values.A).toBeCloseTo(0.6, 12);
    expect(r.values.B).toBeCloseTo(0.4, 12);
  });

  it("three agents, all seven coalitions, computed by hand", () => {
    // V: A .3, B .1, C 0, AB .6, AC .5, BC .2, ABC .9
    // φA = 1/3(.3) + 1/6(.6-.1) + 1/6(.5-0) + 1/3(.9-.2) = .1 + .0833 + .0833 + .2333 = .5
    // φB = 1/3(.1) + 1/6(.6-.3) + 1/6(.2-0) + 1/3(.9-.5) = .0333 + .05 + .0333 + .1333 = .25
    // φC = 1/3(0) + 1/6(.5-.3) + 1/6(.2-.1) + 1/3(.9-.6) = 0 + .0333 + .0167 + .1 = .15
    const v = measured([
      [["A"], 0.3],
      [["B"], 0.1],
      [["C"], 0],
      [["A", "B"], 0.6],
      [["A", "C"], 0.5],
      [["B", "C"], 0.2],
      [["A", "B", "C"], 0.9],
    ]);
    const r = exactShapley(["C", "A", "B"], v);
    if (r.status !== "computed") throw new Error(r.status);
    expect(r.values.A).toBeCloseTo(0.5, 12);
    expect(r.values.B).toBeCloseTo(0.25, 12);
    expect(r.values.C).toBeCloseTo(0.15, 12);
    // efficiency: Σφ = V(N) − V(∅)
    expect(r.values.A! + r.values.B! + r.values.C!).toBeCloseTo(r.grandValue - r.emptyValue, 12);
  });

  it("efficiency holds when the empty coalition was run and is not 0", () => {
    const v = measured([
      [[], 0.1],
      [["A"], 0.4],
      [["B"], 0.2],
      [["A", "B"], 1.0],
    ]);
    const r = exactShapley(["A", "B"], v);
    if (r.status !== "computed") throw new Error(r.status);
    expect(r.values.A! + r.values.B!).toBeCloseTo(0.9, 12);
  });

  it("lists missing coalitions and never fills them in", () => {
    const r = exactShapley(
      ["A", "B", "C"],
      measured([
        [["A", "B", "C"], 0.9],
        [["A"], 0.3],
      ]),
    );
    expect(r.status).toBe("missing_coalitions");
    if (r.status !== "missing_coalitions") return;
    expect(r.missing.map((s) => s.join("+")).sort()).toEqual(["A+B", "A+C", "B", "B+C", "C"]);
  });

  it("refuses the exact sum past ten agents", () => {
    const agents = Array.from({ length: 11 }, (_, i) => `a${i}`);
    expect(exactShapley(agents, () => 0)).toEqual({ status: "too_many_agents", agents: 11 });
  });
});

describe("Monte-Carlo Shapley", () => {
  // A six-agent game with interactions: weights, a pair bonus and a diminishing return.
  const weights: Record<string, number> = { a: 0.3, b: 0.2, c: 0.15, d: 0.1, e: 0.05, f: 0 };
  const game: CoalitionValue = (s) => {
    const base = s.reduce((x, i) => x + (weights[i] ?? 0), 0);
    const bonus = s.includes("a") && s.includes("b") ? 0.2 : 0;
    const harm = s.includes("f") && s.length > 3 ? -0.1 : 0;
    return Math.sqrt(base + bonus) + harm;
  };
  const agents = Object.keys(weights);

  it("is within three standard errors of the exact values on a six-agent game", () => {
    const exact = exactShapley(agents, game);
    if (exact.status !== "computed") throw new Error(exact.status);
    const mc = monteCarloShapley(sampleOrderings(agents, 3000, mulberry32(11)), game);
    if (mc.status !== "computed") throw new Error(mc.status);
    for (const a of agents) {
      const est = mc.values[a]!;
      expect(est.standardError).toBeGreaterThan(0);
      expect(Math.abs(est.value - exact.values[a]!)).toBeLessThanOrEqual(3 * est.standardError);
    }
    // each ordering's contributions telescope to V(N) − V(∅), so the estimates sum to it exactly
    const sum = agents.reduce((s, a) => s + mc.values[a]!.value, 0);
    expect(sum).toBeCloseTo(game(agents)! - game([])!, 10);
  });

  it("names the coalitions its orderings need when some were not run", () => {
    const orderings = sampleOrderings(["x", "y", "z"], 4, mulberry32(3));
    const needed = orderingCoalitions(orderings);
    const partial = measured(needed.filter((s) => s.length !== 1).map((s) => [s, s.length / 3] as [string[], number]));
    const r = monteCarloShapley(orderings, partial);
    expect(r.status).toBe("missing_coalitions");
    if (r.status !== "missing_coalitions") return;
    expect(r.missing.every((s) => s.length === 1)).toBe(true);
    expect(r.missing.length).toBeGreaterThan(0);
  });
});

describe("leave-one-out", () => {
  const opts = () => ({ rng: mulberry32(5), iterations: 1000, confidence: 0.95 });
  const tasks = Array.from({ length: 20 }, (_, i) => `t${i}`);

  it("flags a harmful agent: removing it raises the value beyond noise", () => {
    const full = new Map(tasks.map((t, i) => [t, 0.6 + (i % 3) * 0.05]));
    const withoutHarmful = new Map(tasks.map((t, i) => [t, 0.8 + (i % 3) * 0.05 + (i % 2) * 0.02]));
    const r = leaveOneOut("critic", full, withoutHarmful, opts());
    expect(r.delta!.estimate).toBeCloseTo(-0.21, 10);
    expect(r.delta!.upper).toBeLessThan(0);
    expect(r.verdict).toBe("harmful");
    expect(r.spread).toBeGreaterThan(0);
  });

  it("flags dead weight when the difference is inside the spread, and credits a contributor", () => {
    const full = new Map(tasks.map((t, i) => [t, i % 2]));
    // half the tasks unchanged, a quarter one way, a quarter the other: mean 0, spread 0.7
    const noise = new Map(tasks.map((t, i) => [t, i % 4 < 2 ? 1 - (i % 2) : i % 2]));
    expect(leaveOneOut("idle", full, noise, opts()).verdict).toBe("dead_weight");
    const worse = new Map(tasks.map((t, i) => [t, (i % 2) * 0.2]));
    expect(leaveOneOut("planner", full, worse, opts()).verdict).toBe("contributes");
  });
});

describe("Pareto frontier", () => {
  it("keeps the points no other beats on both quality and cost", () => {
    const f = paretoFrontier([
      { id: "single", quality: 0.6, cost: 1 },
      { id: "multi", quality: 0.9, cost: 5 },
      { id: "no-planner", quality: 0.7, cost: 6 },
      { id: "cheap-multi", quality: 0.8, cost: 2 },
    ]);
    expect([...f].sort()).toEqual(["cheap-multi", "multi", "single"]);
  });
});

describe("ablation variants", () => {
  it("generates N and each N∖{i} for leave-one-out, all 2^n for exact Shapley, the orderings' prefixes for Monte-Carlo", () => {
    const loo = ablationVariants(["b", "a", "c"], "leave_one_out", { orderings: 0, seed: 1 });
    expect(loo.map((v) => v.name)).toEqual(["agents:a+b+c", "agents:b+c", "agents:a+c", "agents:a+b"]);
    expect(ablationVariants(["a", "b", "c"], "all_coalitions", { orderings: 0, seed: 1 })).toHaveLength(8);
    const sampled = ablationVariants(["a", "b", "c", "d"], "sampled_orderings", { orderings: 5, seed: 3 });
    const needed = orderingCoalitions(sampleOrderings(["a", "b", "c", "d"], 5, mulberry32(3)));
    expect(sampled.map((v) => coalitionKey(v.activeAgents)).sort()).toEqual(needed.map(coalitionKey).sort());
    expect(() =>
      ablationVariants(
        Array.from({ length: 11 }, (_, i) => `x${i}`),
        "all_coalitions",
        { orderings: 0, seed: 1 },
      ),
    ).toThrow(RangeError);
  });
});
