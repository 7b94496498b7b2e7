import { describe, expect, it } from "vitest";
import { scoreMilestones, type Milestone, type MilestoneEvaluator } from "../../src/index.ts";
import { clean } from "../trajectory/fixtures.ts";

type Check = { pass: boolean; spanId?: string };
const evaluate: MilestoneEvaluator<Check> = (check) => ({ passed: check.pass, spanId: check.spanId ?? null });
const set = (weights: number[], passing: boolean[], spans: Array<string | undefined> = []): Milestone<Check>[] =>
  weights.map((weight, i) => ({
    id: `m${i}`,
    weight,
    check: { pass: passing[i] ?? false, ...(spans[i] ? { spanId: spans[i] } : {}) },
    requires: i === 0 ? [] : [`m${i - 1}`],
  }));

describe("scoreMilestones", () => {
  it("docs/metrics.md §5 example: .1 .2 .3 .3 .1 with the first three passing → .6, not full, furthest 2", () => {
    const r = scoreMilestones(clean(), set([0.1, 0.2, 0.3, 0.3, 0.1], [true, true, true, false, false]), evaluate);
    expect(r.partialCredit).toBeCloseTo(0.6, 12);
    expect(r.fullSuccess).toBe(false);
    expect(r.furthestIndex).toBe(2);
    expect(r.detail.map((d) => d.passed)).toEqual([true, true, true, false, false]);
  });

  it("gives full success when all pass", () => {
    const r = scoreMilestones(clean(), set([0.5, 0.5], [true, true]), evaluate);
    expect(r).toMatchObject({ partialCredit: 1, fullSuccess: true, furthestIndex: 1, passedCount: 2 });
  });

  it("gates: no credit for a later milestone without the earlier ones", () => {
    const r = scoreMilestones(clean(), set([0.1, 0.2, 0.3, 0.3, 0.1], [true, false, true, true, false]), evaluate);
    expect(r.partialCredit).toBeCloseTo(0.1, 12);
    expect(r.furthestIndex).toBe(0);
    expect(r.detail[2]).toMatchObject({ checkPassed: true, passed: false, missingRequires: ["m1"] });
  });

  it("credits the agent whose span satisfied each milestone; shares sum to 1; every agent listed", () => {
    const r = scoreMilestones(clean(), set([0.2, 0.6, 0.2], [true, true, true], ["res.q", "wri.save", "rev.llm"]), evaluate);
    const credit = Object.fromEntries(r.agentCredit.map((c) => [c.agent, c.credit]));
    expect(credit).toEqual({ lead: 0, researcher: 0.2, writer: 0.6, reviewer: 0.2 });
    expect(r.detail[1]).toMatchObject({ agent: "writer", stepIndex: 4 });
    expect(r.unattributedCredit).toBe(0);
  });

  it("a check left not evaluated (budget) is unknown, not failed: no partial credit or full success, and it spreads through requires", () => {
    type C = Check | "skip";
    const withSkip: MilestoneEvaluator<C> = (check) => (check === "skip" ? { passed: false, notEvaluated: "trace_budget" } : evaluate(check, clean()));
    const milestones: Milestone<C>[] = [
      { id: "a", weight: 0.5, check: { pass: true } },
      { id: "b", weight: 0.3, check: "skip" },
      { id: "c", weight: 0.2, check: { pass: true }, requires: ["b"] },
      { id: "d", weight: 0, check: { pass: false } },
    ];
    const r = scoreMilestones(clean(), milestones, withSkip);
    expect(r).toMatchObject({ partialCredit: null, fullSuccess: null, notEvaluated: 2, furthestIndex: 0 });
    expect(r.detail.map((d) => [d.id, d.passed, d.evaluated, d.notEvaluatedReason])).toEqual([
      ["a", true, true, null],
      ["b", false, false, "trace_budget"],
      ["c", false, false, "trace_budget"],
      ["d", false, true, null],
    ]);
  });

  it("returns null partial credit for an empty milestone set", () => {
    expect(scoreMilestones(clean(), [], evaluate)).toMatchObject({ partialCredit: null, fullSuccess: false, furthestIndex: -1 });
  });
});
