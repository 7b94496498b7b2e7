import { describe, expect, it } from "vitest";
import {
  buildExperimentReport,
  coalitionKey,
  deriveDirective,
  failureStageOf,
  modeRateChange,
  type ExperimentRun,
  type ExperimentVariantSpec,
} from "../../src/experiments/index.ts";
import { mulberry32 } from "../../src/stats/index.ts";

const agents = ["planner", "reviewer", "worker"];
const allModes = ["FM-2.4", "FM-3.2", "FM-3.3"];

/** Success probability of a coalition: planner and worker carry it, reviewer hurts. */
function pOf(active: string[]): number {
  let p = 0.1;
  if (active.includes("worker")) p += 0.4;
  if (active.includes("planner")) p += 0.3;
  if (active.includes("reviewer")) p -= 0.15;
  return Math.max(0, Math.min(1, p));
}

function simulate(variants: ExperimentVariantSpec[], tasks = 30, trials = 4): ExperimentRun[] {
  const rng = mulberry32(99);
  const runs: ExperimentRun[] = [];
  for (const v of variants) {
    for (let t = 0; t < tasks; t++) {
      for (let k = 0; k < trials; k++) {
        const p = v.isBaseline ? 0.45 : pOf(v.activeAgents ?? agents);
        const success = rng() < p;
        const nAgents = v.isBaseline ? 1 : (v.activeAgents ?? agents).length;
        runs.push({
          traceId: `${v.name}-${t}-${k}`.padEnd(8, "0"),
          variant: v.name,
          taskId: `task-${String(t).padStart(2, "0")}`,
          trial: k,
          activeAgents: null,
          success,
          partialCredit: null,
          furthestMilestone: null,
          tokens: 1000 * nAgents,
          costUsd: 0.01 * nAgents + (t % 3) * 0.001,
          wallMs: 1000,
          modes: success ? [] : v.isBaseline ? ["FM-3.2"] : ["FM-2.4"],
          failureStart: success ? null : "handoff",
        });
      }
    }
  }
  return runs;
}

const leaveOneOutVariants: ExperimentVariantSpec[] = [
  { name: "single", isBaseline: true, activeAgents: null },
  { name: "full", isBaseline: false, activeAgents: null },
  ...agents.map((a) => ({ name: `without-${a}`, isBaseline: false, activeAgents: agents.filter((x) => x !== a) })),
];

const options = { seed: 7, iterations: 400, confidence: 0.95, shapleyOrderings: 100 };

describe("the experiment report", () => {
  it("credits planner and worker, flags the harmful reviewer, and lists the coalitions Shapley still needs", () => {
    const r = buildExperimentReport(
      {
        valueKind: "success",
        variants: leaveOneOutVariants,
        runs: simulate(leaveOneOutVariants),
        tasks: [],
        measuredModes: ["FM-2.4", "FM-3.2"],
        allModes,
        bar: { kind: "quality_difference", min: 0 },
      },
      options,
    );
    expect(r.baseline).toBe("single");
    expect(r.candidate).toBe("full");
    const verdicts = Object.fromEntries(r.credit!.leaveOneOut.map((l) => [l.agent, l.verdict]));
    expect(verdicts).toEqual({ planner: "contributes", reviewer: "harmful", worker: "contributes" });
    expect(r.credit!.shapley.method).toBe("none");
    if (r.credit!.shapley.method === "none") expect(r.credit!.shapley.missingCoalitions.map(coalitionKey)).toContain(coalitionKey(["planner"]));
    const full = r.variants.find((v) => v.name === "full")!;
    expect(full.runs).toBe(120);
    expect(full.traceIds).toHaveLength(120);
    expect(full.passK.map((p) => p.k)).toEqual([1, 2, 3, 4]);
    expect(full.passK[3]!.passHatK).toBeLessThan(full.passK[0]!.passHatK);
    expect(full.failureModes.find((m) => m.mode === "FM-3.3")).toMatchObject({ measured: false, rate: null });
    expect(full.dominantMode).toBe("FM-2.4");
    expect(full.vsBaseline!.pairedTasks).toHaveLength(30);
    expect(full.vsBaseline!.tokenMultiplier!.estimate).toBe(3);
    expect(full.timeHorizon).toMatchObject({ status: "refused", reason: "too_few_tasks" });
    expect(r.directive.dominantMode).toEqual({ mode: "FM-2.4", rate: full.failureModes.find((m) => m.mode === "FM-2.4")!.rate, startsAt: "handoff" });
    expect(r.directive.structuralChange).toMatch(/handoff contract/);
    expect(r.directive.agentChanges[0]).toMatch(/reviewer/);
    // the same runs give the same report
    const again = buildExperimentReport(
      {
        valueKind: "success",
        variants: leaveOneOutVariants,
        runs: simulate(leaveOneOutVariants),
        tasks: [],
        measuredModes: ["FM-2.4", "FM-3.2"],
        allModes,
        bar: { kind: "quality_difference", min: 0 },
      },
      options,
    );
    expect(again).toEqual(r);
  });

  it("computes exact Shapley values summing to V(N) − V(∅) when every coalition was run, and marks the Pareto frontier", () => {
    const subsets = [[], ["planner"], ["reviewer"], ["worker"], ["planner", "reviewer"], ["planner", "worker"], ["reviewer", "worker"]];
    const variants: ExperimentVariantSpec[] = [
      ...leaveOneOutVariants,
      ...subsets.map((s) => ({ name: `only-${s.join("+") || "none"}`, isBaseline: false, activeAgents: s })),
    ];
    const r = buildExperimentReport(
      { valueKind: "success", variants, runs: simulate(variants, 20, 3), tasks: [], measuredModes: [], allModes, bar: null },
      options,
    );
    const s = r.credit!.shapley;
    expect(s.method).toBe("exact");
    if (s.method !== "exact") return;
    expect(s.sum).toBeCloseTo(s.grandMinusEmpty, 10);
    expect(s.values.worker!).toBeGreaterThan(s.values.planner!);
    expect(s.values.reviewer!).toBeLessThan(0);
    expect(r.directive.decision).toBe("no_bar");
    const frontier = r.variants.filter((v) => v.onParetoFrontier).map((v) => v.name);
    expect(frontier).toContain("only-none");
    expect(frontier).not.toContain("full"); // without-reviewer is cheaper and better
  });
});

describe("the directive", () => {
  const interval = (estimate: number, lower: number, upper: number) => ({
    estimate,
    lower,
    upper,
    confidence: 0.95,
    iterations: 100,
    tasks: 40,
    fewTasks: false,
  });
  const base = { candidate: "multi", cauStatus: null, qualityDifference: null, passHatK: () => null, modes: [], harmful: [], deadWeight: [] };

  it("ships when the CAU interval is clear of the bar, holds when it reaches below", () => {
    expect(deriveDirective({ ...base, bar: { kind: "cau", min: 0.005 }, cau: interval(0.011, 0.007, 0.015) }).decision).toBe("ship");
    const hold = deriveDirective({ ...base, bar: { kind: "cau", min: 0.005 }, cau: interval(0.011, 0.002, 0.02) });
    expect(hold.decision).toBe("hold");
    expect(hold.reasons[0]).toMatch(/run more tasks/);
    expect(deriveDirective({ ...base, bar: { kind: "cau", min: 0.005 }, cau: null, cauStatus: "dominated" }).decision).toBe("hold");
  });

  it("names the dominant mode, where it starts, and the change the taxonomy points to", () => {
    const d = deriveDirective({
      ...base,
      bar: { kind: "pass_hat_k", k: 3, min: 0.5 },
      cau: null,
      passHatK: (k) => (k === 3 ? interval(0.7, 0.6, 0.8) : null),
      modes: [
        { mode: "FM-3.2", rate: 0.3, runs: 12, stages: { verification: 10, worker: 2 } },
        { mode: "FM-2.4", rate: 0.1, runs: 4, stages: { handoff: 4 } },
      ],
    });
    expect(d.decision).toBe("ship");
    expect(d.dominantMode).toEqual({ mode: "FM-3.2", rate: 0.3, startsAt: "verification" });
    expect(d.structuralChange).toMatch(/verifier/);
  });
});

describe("where a failure starts", () => {
  const base = { findings: [], rootAgents: ["lead"], handoffSpanIds: ["h1"] };
  it("reads verification, handoff, planning and worker from the decisive step and its findings", () => {
    expect(failureStageOf({ ...base, decisive: { agent: "checker", spanId: "s1" }, findings: [{ mode: "FM-3.2", agent: "checker", spanId: "s1" }] })).toBe(
      "verification",
    );
    expect(failureStageOf({ ...base, decisive: { agent: "lead", spanId: "h1" } })).toBe("handoff");
    expect(failureStageOf({ ...base, decisive: { agent: "lead", spanId: "s2" } })).toBe("planning");
    expect(failureStageOf({ ...base, decisive: { agent: "coder", spanId: "s3" } })).toBe("worker");
    expect(failureStageOf({ ...base, decisive: null })).toBeNull();
    expect(failureStageOf({ ...base, decisive: null, findings: [{ mode: "FM-2.4", agent: "lead", spanId: "s9" }] })).toBe("handoff");
  });
});

describe("a mode's rate before and after a change", () => {
  const runs = (tasks: number, hitEvery: number) =>
    Array.from({ length: tasks * 3 }, (_, i) => ({ taskId: `t${Math.floor(i / 3)}`, modes: i % hitEvery === 0 ? ["FM-3.2"] : [] }));
  it("says the rate dropped when the whole interval is below 0, and not when the change is within noise", () => {
    const opts = () => ({ rng: mulberry32(4), iterations: 1000, confidence: 0.95 });
    const dropped = modeRateChange(runs(30, 2), runs(30, 10), "FM-3.2", opts());
    expect(dropped.before).toBeCloseTo(0.5, 1);
    expect(dropped.change!.upper).toBeLessThan(0);
    expect(dropped.dropped).toBe(true);
    expect(modeRateChange(runs(30, 2), runs(30, 2), "FM-3.2", opts()).dropped).toBe(false);
    expect(modeRateChange([], runs(3, 2), "FM-3.2", opts())).toMatchObject({ before: null, change: null, dropped: null });
  });
});
