import { describe, expect, it } from "vitest";
import { replayAttribution, replayReport, type ReplayRun, type ReplaySet } from "../../src/experiments/index.ts";

const A: ReplaySet = { id: "agent:A", kind: "single", agents: ["A"], spanIds: [] };
const B: ReplaySet = { id: "agent:B", kind: "single", agents: ["B"], spanIds: [] };
const ALL: ReplaySet = { id: "all", kind: "combined", agents: ["A", "B"], spanIds: [] };

/** Scored runs of a set from a string: "1" success, "0" failure, "?" scored without outcome, "p" pending, "x" lost. */
function runs(set: string, pattern: string): ReplayRun[] {
  return [...pattern].map((c, trial) => {
    if (c === "p") return { set, trial, state: "running", success: null };
    if (c === "x") return { set, trial, state: "timed_out", success: null };
    return { set, trial, state: "scored", success: c === "1" ? true : c === "0" ? false : null };
  });
}

describe("replay report", () => {
  it("names the correction that fixes a majority of its trials alone as decisive", () => {
    // A: 2 of 3 succeed (majority); B: 0 of 3; all: 3 of 3. Original failed.
    const report = replayReport({
      originalSuccess: false,
      trials: 3,
      sets: [A, B, ALL],
      runs: [...runs("agent:A", "101"), ...runs("agent:B", "000"), ...runs("all", "111")],
    });
    expect(report.complete).toBe(true);
    expect(report.verdict).toBe("decisive");
    expect(report.decisive).toEqual([{ set: "agent:A", agents: ["A"], spanIds: [], succeeded: 2, trials: 3 }]);
    expect(report.sharedBlame).toBeNull();
    const a = report.sets.find((s) => s.id === "agent:A");
    expect(a).toMatchObject({ succeeded: 2, failed: 1, successRate: 2 / 3, flipRate: 2 / 3, majority: true });
    expect(report.sets.find((s) => s.id === "agent:B")).toMatchObject({ succeeded: 0, failed: 3, flipRate: 0, majority: false });
    // Flips over all 9 scored outcomes: 2 (A) + 0 (B) + 3 (all) = 5.
    expect(report.flipRate).toBeCloseTo(5 / 9, 12);
    expect(replayAttribution(report)).toEqual({ agent: "A", spanId: null, explanation: "correcting A alone made 2 of 3 re-runs succeed" });
  });

  it("gives shared blame when only the combination fixes it", () => {
    // A 1/4 and B 2/4: half is not a majority; all 3/4.
    const report = replayReport({
      originalSuccess: false,
      trials: 4,
      sets: [A, B, ALL],
      runs: [...runs("agent:A", "1000"), ...runs("agent:B", "1100"), ...runs("all", "1101")],
    });
    expect(report.verdict).toBe("shared");
    expect(report.decisive).toEqual([]);
    expect(report.sharedBlame).toEqual({ set: "all", agents: ["A", "B"], spanIds: [], succeeded: 3, trials: 4 });
    const pick = replayAttribution(report);
    expect(pick?.agent).toBeNull();
    expect(pick?.explanation).toMatch(/^shared blame: .*all together \(A \+ B\) made 3 of 4 succeed$/);
  });

  it("names nothing when no set fixes it, and stays open while a majority is still reachable", () => {
    const none = replayReport({
      originalSuccess: false,
      trials: 3,
      sets: [A, B, ALL],
      runs: [...runs("agent:A", "000"), ...runs("agent:B", "010"), ...runs("all", "100")],
    });
    expect(none.verdict).toBe("none");
    expect(replayAttribution(none)).toBeNull();
    // A has 1 success and 2 waiting: 3 of 3 is still possible, so nothing is decided.
    const open = replayReport({
      originalSuccess: false,
      trials: 3,
      sets: [A, B, ALL],
      runs: [...runs("agent:A", "1pp"), ...runs("agent:B", "000"), ...runs("all", "111")],
    });
    expect(open.complete).toBe(false);
    expect(open.verdict).toBe("open");
    expect(open.sets.find((s) => s.id === "agent:A")).toMatchObject({ waiting: 2, majority: null });
    expect(replayAttribution(open)).toBeNull();
  });

  it("decides a majority before every run arrives, and counts lost and outcome-less runs as not succeeding", () => {
    // A: 2 of 3 succeeded already (the third pending): decisive. B: one lost, one without outcome, one pending → at most 1 of 3.
    const report = replayReport({
      originalSuccess: false,
      trials: 3,
      sets: [A, B, ALL],
      runs: [...runs("agent:A", "11p"), ...runs("agent:B", "x?p"), ...runs("all", "pp1")],
    });
    expect(report.complete).toBe(false);
    expect(report.verdict).toBe("decisive");
    expect(report.sets.find((s) => s.id === "agent:B")).toMatchObject({ lost: 1, unknown: 1, waiting: 1, successRate: null, majority: false });
  });

  it("ranks several decisive corrections by successes and reads a step correction as its span", () => {
    const step: ReplaySet = { id: "span:s7", kind: "single", agents: ["B"], spanIds: ["s7"] };
    const report = replayReport({
      originalSuccess: false,
      trials: 3,
      sets: [A, step, ALL],
      runs: [...runs("agent:A", "110"), ...runs("span:s7", "111"), ...runs("all", "111")],
    });
    expect(report.decisive.map((d) => d.set)).toEqual(["span:s7", "agent:A"]);
    expect(replayAttribution(report)).toEqual({
      agent: "B",
      spanId: "s7",
      explanation: "correcting B + step s7 alone made 3 of 3 re-runs succeed; also decisive: A",
    });
  });

  it("has no flip rate when the original outcome is unknown, and flips to failure for a trace that succeeded", () => {
    const unknown = replayReport({ originalSuccess: null, trials: 2, sets: [A], runs: runs("agent:A", "11") });
    expect(unknown.flipRate).toBeNull();
    expect(unknown.sets[0]?.flipRate).toBeNull();
    const succeeded = replayReport({ originalSuccess: true, trials: 4, sets: [A], runs: runs("agent:A", "1000") });
    expect(succeeded.flipRate).toBe(3 / 4);
  });
});
