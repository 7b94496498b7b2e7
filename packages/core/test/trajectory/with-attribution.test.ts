import { describe, expect, it } from "vitest";
import { attributeAgents } from "../../src/attribution/index.ts";
import { buildTrajectories } from "../../src/trajectory/index.ts";
import { scoreUsage } from "../../src/index.ts";
import { span } from "./builder.ts";

describe("buildTrajectories over attributeAgents()", () => {
  it("builds steps, handoffs and error paths from the real attribution", () => {
    const spans = [
      span({ id: "root", op: "agent", agent: "lead", start: 0, end: 100, input: "book a flight" }),
      span({ id: "l1", parent: "root", op: "llm", model: "gpt-4o", start: 1, end: 5, tokens: { input: 100, output: 10 } }),
      span({ id: "sub", parent: "root", op: "agent", agent: "search_1", start: 10, end: 50 }),
      span({ id: "s.llm", parent: "sub", op: "llm", model: "gpt-4o", start: 11, end: 20, tokens: { input: 50, output: 5 } }),
      span({ id: "s.tool", parent: "sub", op: "tool", tool: "flights", start: 21, end: 30, error: "HTTPError" }),
    ];
    const attribution = attributeAgents(spans);
    const t = buildTrajectories(spans, attribution);
    expect(t.steps.map((s) => [s.spanId, s.agent])).toEqual([
      ["l1", "lead"],
      ["s.llm", "search_1"],
      ["s.tool", "search_1"],
    ]);
    expect(t.handoffs.map((h) => [h.sender, h.receiver])).toEqual([["lead", "search_1"]]);
    const usage = scoreUsage(t);
    expect(usage.totals.totalTokens).toBe(165);
    expect(usage.errorPaths.map((e) => e.path)).toEqual(["lead > search_1"]);
  });
});
