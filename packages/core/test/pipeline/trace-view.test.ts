import { describe, expect, it } from "vitest";
import { buildTraceView, checkResultOf, expressionsOf, prepareTrace, runTagsOf } from "../../src/pipeline/index.ts";
import { cleanSpecs } from "../trajectory/fixtures.ts";
import { span } from "../trajectory/builder.ts";
import { config } from "./fixtures.ts";

describe("buildTraceView", () => {
  const t = prepareTrace(cleanSpecs.map(span));
  const view = buildTraceView(t, runTagsOf(t, { success: true, taskId: "solar" }));

  it("is plain JSON with owners, step indices and times from the trace start", () => {
    expect(() => JSON.stringify(view)).not.toThrow();
    const save = view.spans.find((s) => s.spanId === "wri.save");
    expect(save).toMatchObject({
      agent: "writer",
      agentPath: ["lead", "writer"],
      tool: "write_file",
      operation: "tool",
      stepIndex: 4,
      startMs: 410,
      endMs: 420,
      durationMs: 10,
    });
    expect(save?.args).toBe('{"path":"report.md"}');
    expect(view.run).toEqual({ success: true, score: null, taskId: "solar", variant: null, experimentId: null, seed: null });
    expect(view.agents.map((a) => a.name)).toEqual(["lead", "researcher", "writer", "reviewer"]);
    expect(view.handoffs.map((h) => h.receiver)).toEqual(["researcher", "writer", "reviewer"]);
    expect(view.steps).toHaveLength(t.steps.length);
    expect(view.goal).toContain("solar panel efficiency");
  });
});

describe("checkResultOf", () => {
  it("fails falsy and empty values", () => {
    for (const v of [undefined, null, false, 0, "", Number.NaN, [], {}]) expect(checkResultOf(v)).toBe(false);
  });
  it("passes truthy values and cites a span when the value is one", () => {
    expect(checkResultOf(true)).toBe(true);
    expect(checkResultOf(3)).toBe(true);
    expect(checkResultOf({ spanId: "s1", tool: "x" })).toEqual({ passed: true, spanId: "s1" });
    expect(checkResultOf([{ spanId: "s2" }, { spanId: "s3" }])).toEqual({ passed: true, spanId: "s2" });
    expect(checkResultOf({ other: 1 })).toEqual({ passed: true, spanId: null });
  });
});

describe("expressionsOf", () => {
  it("collects milestone checks and string completion conditions once each", () => {
    const exprs = expressionsOf(
      config({
        milestoneSet: {
          id: "m",
          milestones: [
            { id: "a", weight: 1, check: "x" },
            { id: "b", weight: 1, check: "y" },
          ],
        },
        agentContracts: [
          { agent: "w", role: "r", completionCondition: "x" },
          { agent: "v", role: "r", completionCondition: { not: "a string" } },
        ],
      }),
    );
    expect(exprs).toEqual(["x", "y"]);
  });
});
