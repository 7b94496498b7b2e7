import { describe, expect, it } from "vitest";
import { buildTrajectories } from "../../src/trajectory/index.ts";
import { attributionFor, ms, span, type SpanSpec } from "./builder.ts";

const leadAndSearch: SpanSpec[] = [
  { id: "root", op: "agent", agent: "lead", start: 0, end: 100, input: "Find the GDP of France in 2023" },
  { id: "l1", parent: "root", op: "llm", model: "gpt-4o", start: 1, end: 5, tokens: { input: 100, output: 20 } },
  { id: "s", parent: "root", op: "agent", agent: "search_1", start: 10, end: 50, input: "look up France GDP 2023" },
  // framework wrapper llm span with a provider child: one step, child folded in
  { id: "w", parent: "s", op: "llm", start: 11, end: 20 },
  { id: "p", parent: "w", op: "llm", model: "gpt-4o-mini", start: 12, end: 19, tokens: { input: 50, output: 10, cached: 5 } },
  {
    id: "t",
    parent: "s",
    op: "tool",
    tool: "web_search",
    start: 21,
    end: 30,
    args: '{"q":"france gdp","year":2023}',
    output: "3.05 trillion USD",
  },
  {
    id: "l2",
    parent: "root",
    op: "llm",
    start: 60,
    end: 70,
    tokens: { input: 10, output: 5 },
    output: "France GDP was 3.05T",
    finishReasons: ["stop"],
  },
];

describe("buildTrajectories", () => {
  it("orders steps globally, folds nested LLM calls, and splits per agent", () => {
    const spans = leadAndSearch.map(span);
    const t = buildTrajectories(spans, attributionFor(spans));
    expect(t.steps.map((s) => s.spanId)).toEqual(["l1", "w", "t", "l2"]);
    expect(t.steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    const wrapper = t.steps[1]!;
    expect(wrapper.foldedSpanIds).toEqual(["p"]);
    expect(wrapper.tokens).toEqual({ inputTokens: 50, outputTokens: 10, cachedTokens: 5 });
    expect(wrapper.model).toBe("gpt-4o-mini");
    expect(t.stepIndexBySpan.get("p")).toBe(1);
    const lead = t.agents.find((a) => a.name === "lead")!;
    const search = t.agents.find((a) => a.name === "search_1")!;
    expect(lead.steps.map((s) => s.spanId)).toEqual(["l1", "l2"]);
    expect(search.steps.map((s) => s.spanId)).toEqual(["w", "t"]);
    expect(search.parentAgent).toBe("lead");
    expect(t.steps[3]!.outputText).toBe("France GDP was 3.05T");
    expect(t.steps[3]!.finishReasons).toEqual(["stop"]);
  });

  it("canonicalizes tool arguments so key order does not matter", () => {
    const spans = leadAndSearch.map(span);
    const t = buildTrajectories(spans, attributionFor(spans));
    expect(t.steps[2]!.args).toBe('{"q":"france gdp","year":2023}');
    const reordered = leadAndSearch.map((s) => (s.id === "t" ? { ...s, args: { year: 2023, q: "france gdp" } } : s)).map(span);
    const t2 = buildTrajectories(reordered, attributionFor(reordered));
    expect(t2.steps[2]!.args).toBe(t.steps[2]!.args);
  });

  it("records handoffs with the content passed, return messages, and the goal", () => {
    const spans = leadAndSearch.map(span);
    const t = buildTrajectories(spans, attributionFor(spans));
    expect(t.goal).toBe("Find the GDP of France in 2023");
    expect(t.handoffs).toHaveLength(1);
    expect(t.handoffs[0]).toMatchObject({
      sender: "lead",
      receiver: "search_1",
      message: "look up France GDP 2023",
      messageSource: "receiver_input",
      spanId: "s",
    });
    expect(t.messages.map((m) => m.kind)).toEqual(["handoff"]);
    const withResult = leadAndSearch.map((s) => (s.id === "s" ? { ...s, output: "3.05T" } : s)).map(span);
    const t2 = buildTrajectories(withResult, attributionFor(withResult));
    expect(t2.messages.map((m) => [m.kind, m.from, m.to, m.text])).toEqual([
      ["handoff", "lead", "search_1", "look up France GDP 2023"],
      ["return", "search_1", "lead", "3.05T"],
    ]);
  });

  it("takes handoff content from transfer-tool arguments", () => {
    const spans = [
      span({ id: "a", op: "agent", agent: "triage", start: 0, end: 10 }),
      span({
        id: "h",
        parent: "a",
        op: "handoff",
        tool: "handoff_to_agent",
        handoffTo: "billing",
        start: 2,
        end: 3,
        args: '{"agent_name":"billing","message":"refund order 42 under 100 EUR"}',
        handoffMessage: "refund order 42 under 100 EUR",
      }),
      span({ id: "b", op: "agent", agent: "billing", start: 4, end: 9, input: "whole history" }),
    ];
    const t = buildTrajectories(spans, attributionFor(spans));
    expect(t.handoffs[0]).toMatchObject({
      sender: "triage",
      receiver: "billing",
      message: "refund order 42 under 100 EUR",
      messageSource: "handoff_span",
      stepIndex: 0,
    });
    expect(t.steps[0]!.kind).toBe("handoff");
  });

  it("flags orphans, several roots and clock skew without failing", () => {
    const spans = [
      span({ id: "root", op: "agent", agent: "lead", start: 10, end: 100 }),
      span({ id: "early", parent: "root", op: "tool", tool: "x", start: 5, end: 12 }),
      span({ id: "ok", parent: "root", op: "tool", tool: "y", start: 9.5, end: 12 }),
      span({ id: "orph", parent: "missing", op: "llm", start: 20, end: 30 }),
    ];
    const t = buildTrajectories(spans, attributionFor(spans));
    expect(t.flags.orphans).toEqual(["orph"]);
    expect(t.flags.multipleRoots).toBe(true);
    expect(t.flags.clockSkew).toEqual([{ spanId: "early", parentSpanId: "root", skewNs: ms(10) - ms(5) }]);
    expect(t.flags.unattributedSteps).toBe(1);
    expect(t.rootSpanId).toBe("root");
    const clean = buildTrajectories(spans.slice(0, 1), attributionFor(spans.slice(0, 1)));
    expect(clean.flags).toMatchObject({ orphans: [], multipleRoots: false, clockSkew: [] });
  });

  it("breaks start-time ties by span id", () => {
    const spans = [
      span({ id: "root", op: "agent", agent: "a", start: 0, end: 10 }),
      span({ id: "zz", parent: "root", op: "tool", tool: "x", start: 1 }),
      span({ id: "aa", parent: "root", op: "tool", tool: "y", start: 1 }),
    ];
    const t = buildTrajectories(spans, attributionFor(spans));
    expect(t.steps.map((s) => s.spanId)).toEqual(["aa", "zz"]);
  });
});
