import { describe, expect, it } from "vitest";
import { baselineFromRuns, readRunTags, scoreMultipliers } from "../../src/index.ts";
import { cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

describe("readRunTags", () => {
  it("reads the root span first, then other spans (values as the normalizer parsed them)", () => {
    const t = traj(
      withSpecs(cleanSpecs, [
        { ...cleanSpecs[0]!, runTags: { taskId: "task-7", success: false, variant: "multi" } },
        { id: "final", parent: "lead", op: "llm", start: 910, runTags: { taskId: "other", score: 0.4, seed: "3" } },
      ]),
    );
    const tags = readRunTags(t);
    expect(tags).toMatchObject({ taskId: "task-7", success: false, score: 0.4, variant: "multi", seed: "3", isBaseline: null, experimentId: null });
    expect(tags.sources).toMatchObject({ taskId: "root_span", score: "span", experimentId: "absent" });
  });

  it("lets an API override win and derives baseline from the variant", () => {
    const t = traj(withSpecs(cleanSpecs, [{ ...cleanSpecs[0]!, runTags: { success: true, variant: "baseline" } }]));
    expect(readRunTags(t).isBaseline).toBe(true);
    const tags = readRunTags(t, { success: false });
    expect(tags.success).toBe(false);
    expect(tags.sources.success).toBe("override");
  });

  it("reports absent tags as null on an untagged trace", () => {
    const tags = readRunTags(traj(cleanSpecs));
    expect(tags.success).toBeNull();
    expect(tags.taskId).toBeNull();
  });
});

describe("multipliers", () => {
  it("prefers a baseline run, then a configured figure, else unknown", () => {
    const fromRun = scoreMultipliers(
      { tokens: 15_000, costUsd: 0.3 },
      { baselineRun: { tokens: 4_000, costUsd: 0.1 }, configured: { tokens: 5_000, costUsd: 0.2 } },
    );
    expect(fromRun.tokens).toEqual({ value: 3.75, observed: 15_000, baseline: 4_000, source: "baseline_run" });
    expect(fromRun.cost.value).toBeCloseTo(3, 12);
    const configured = scoreMultipliers(
      { tokens: 15_000, costUsd: 0.3 },
      { baselineRun: { tokens: 4_000, costUsd: null }, configured: { tokens: 5_000, costUsd: 0.2 } },
    );
    expect(configured.tokens.source).toBe("baseline_run");
    expect(configured.cost).toMatchObject({ source: "configured", baseline: 0.2 });
    expect(configured.cost.value).toBeCloseTo(1.5, 12);
    const unknown = scoreMultipliers({ tokens: 15_000, costUsd: null }, {});
    expect(unknown.tokens).toEqual({ value: null, observed: 15_000, baseline: null, source: "unknown" });
    expect(unknown.cost.value).toBeNull();
  });

  it("averages the baseline runs of the same task only", () => {
    const runs = [
      { taskId: "t1", isBaseline: true, tokens: 1000, costUsd: 0.01 },
      { taskId: "t1", isBaseline: true, tokens: 3000, costUsd: 0.03 },
      { taskId: "t1", isBaseline: false, tokens: 9000, costUsd: 0.09 },
      { taskId: "t2", isBaseline: true, tokens: 7000, costUsd: 0.07 },
    ];
    expect(baselineFromRuns(runs, "t1")).toEqual({ tokens: 2000, costUsd: 0.02 });
    expect(baselineFromRuns(runs, "t3")).toBeNull();
    expect(baselineFromRuns([{ taskId: "t1", isBaseline: true, tokens: 10, costUsd: null }], "t1")).toEqual({ tokens: 10, costUsd: null });
  });
});
