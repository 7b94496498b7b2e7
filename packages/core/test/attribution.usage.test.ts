import { describe, expect, it } from "vitest";
import { attributeAgents } from "../src/attribution/index.ts";
import type { AgentUsage, TraceAttribution } from "../src/attribution/types.ts";
import type { NormalizedSpan } from "../src/span.ts";
import { agentSpec as agent, llmSpec as llm, orderedTrace as trace, toolSpec as tool } from "../src/testing/index.ts";

function usage(result: TraceAttribution, name: string): AgentUsage {
  const found = result.agents.find((a) => a.name === name);
  if (found === undefined) throw new Error(`no agent ${name}; have ${result.agents.map((a) => a.name).join(", ")}`);
  return found;
}
const tokens = (a: { inputTokens: number; outputTokens: number }) => [a.inputTokens, a.outputTokens];

describe("ownership", () => {
  it("credits LLM and tool spans to their agent without a name on them", () => {
    const r = attributeAgents(trace(agent("a", null, "lead"), llm("l1", "a", 100, 10), tool("t1", "a", "search"), llm("l2", "t1", 5, 1)));
    expect(r.agents.map((a) => a.name)).toEqual(["lead"]);
    expect(r.bySpan.get("l1")).toMatchObject({ agentKey: "name:lead", agentPath: ["lead"], depth: 1 });
    expect(r.bySpan.get("l2")).toMatchObject({ agentKey: "name:lead", depth: 2 });
    expect(usage(r, "lead")).toMatchObject({ spans: 4, llmCalls: 2, toolCalls: 1, inputTokens: 105, outputTokens: 11, parentAgent: null });
  });

  it("propagated gen_ai.agent.name on other spans creates no phantom agent", () => {
    const r = attributeAgents(
      trace(
        agent("a", null, "lead"),
        llm("l1", "a", 10, 1, { agentName: "writer" }),
        tool("t1", "a", "x", { agentName: "writer" }),
        llm("l2", null, 7, 1, { agentName: "writer" }),
        tool("t2", null, "y", { agentName: "lead" }),
      ),
    );
    expect(r.agents.map((a) => a.name)).toEqual(["lead"]);
    expect(r.bySpan.get("l1")?.agentKey).toBe("name:lead");
    // Outside any agent span, a hint counts only when it names a real agent.
    expect(r.bySpan.get("l2")).toMatchObject({ agentKey: null, agentPath: [] });
    expect(r.bySpan.get("t2")).toMatchObject({ agentKey: "name:lead", agentPath: ["lead"] });
    expect(tokens(usage(r, "lead"))).toEqual([10, 1]);
    expect(tokens(r.totals)).toEqual([17, 2]);
  });

  it("without any agent span, propagated names define the agents", () => {
    const r = attributeAgents(
      trace(
        { spanId: "r", parentSpanId: null },
        llm("l1", "r", 10, 2, { agentName: "planner" }),
        llm("l2", "r", 20, 3, { agentName: "coder" }),
        tool("t", "r", "run", { agentName: "coder" }),
      ),
    );
    expect(r.agents.map((a) => [a.name, a.inputTokens, a.outputTokens, a.toolCalls])).toEqual([
      ["planner", 10, 2, 0],
      ["coder", 20, 3, 1],
    ]);
    expect(r.bySpan.get("r")?.agentKey).toBeNull();
  });

  it("one agent run twice is one agent; its key is the first id; errors and paths follow the tree", () => {
    const spans = trace(
      agent("boss", null, "boss"),
      agent("w1", "boss", "worker", { agentId: "run-1" }),
      llm("c1", "w1", 10, 1),
      agent("w2", "boss", "worker", { agentId: "run-2" }),
      llm("c2", "w2", 20, 2),
      tool("t", "w2", "fetch", { isError: true, errorType: "TimeoutError" }),
    );
    const r = attributeAgents(spans);
    expect(r.agents.map((a) => a.key)).toEqual(["name:boss", "run-1"]);
    expect(usage(r, "worker")).toMatchObject({ id: "run-1", spans: 5, llmCalls: 2, errors: 1, inputTokens: 30, outputTokens: 3, parentAgent: "boss" });
    expect(usage(r, "worker").firstStartNs).toBe(spans[1]?.startTimeUnixNano);
    expect(usage(r, "worker").lastEndNs).toBe(spans[1]?.endTimeUnixNano);
    expect(r.bySpan.get("t")).toMatchObject({ agentKey: "run-1", agentPath: ["boss", "worker"], depth: 2 });
  });
});

describe("tokens are counted once", () => {
  it("agent run totals + llm children: the children win", () => {
    const r = attributeAgents(
      trace(
        agent("a", null, "writer", { inputTokens: 150, outputTokens: 30 }),
        llm("l1", "a", 100, 20, { cost: 0.01 }),
        llm("l2", "a", 50, 10, { cost: 0.005 }),
      ),
    );
    expect(r.bySpan.get("a")?.counted).toEqual({ inputTokens: 0, outputTokens: 0, cachedTokens: 0, cost: null });
    expect(r.bySpan.get("l1")?.counted.inputTokens).toBe(100);
    expect(tokens(usage(r, "writer"))).toEqual([150, 30]);
    expect(usage(r, "writer").cost).toBeCloseTo(0.015, 10);
    expect(tokens(r.totals)).toEqual([150, 30]);
  });

  it("wrapper llm + provider llm child: the innermost wins, one call", () => {
    const r = attributeAgents(
      trace(
        agent("a", null, "adk"),
        llm("w", "a", 100, 10, { name: "call_llm", cachedTokens: 40 }),
        llm("p", "w", 100, 10, { name: "generate_content", cachedTokens: 40 }),
      ),
    );
    expect(r.bySpan.get("w")?.counted.inputTokens).toBe(0);
    expect(r.bySpan.get("p")?.counted).toMatchObject({ inputTokens: 100, outputTokens: 10, cachedTokens: 40 });
    expect(usage(r, "adk")).toMatchObject({ llmCalls: 1, inputTokens: 100, outputTokens: 10, cachedTokens: 40, cost: null });
  });

  it("a wrapper whose child reports no usage keeps its own", () => {
    const r = attributeAgents(trace(agent("a", null, "x"), llm("w", "a", 80, 8), llm("p", "w", null, null)));
    expect(usage(r, "x")).toMatchObject({ llmCalls: 1, inputTokens: 80, outputTokens: 8 });
  });

  it("an agent with only run totals and no llm spans: the totals are used", () => {
    const r = attributeAgents(trace(agent("a", null, "solo", { inputTokens: 300, outputTokens: 40 }), tool("t", "a", "x")));
    expect(r.bySpan.get("a")?.counted.inputTokens).toBe(300);
    expect(usage(r, "solo")).toMatchObject({ llmCalls: 0, inputTokens: 300, outputTokens: 40 });
  });

  it("an agent nested under another agent's tool span keeps its own tokens (pydantic-ai delegation)", () => {
    const r = attributeAgents(
      trace(
        agent("lead", null, "lead", { inputTokens: 350, outputTokens: 70 }),
        llm("c1", "lead", 100, 20),
        tool("d", "lead", "delegate_research"),
        agent("res", "d", "researcher", { inputTokens: 250, outputTokens: 50 }),
        llm("c2", "res", 250, 50),
      ),
    );
    expect(tokens(usage(r, "lead"))).toEqual([100, 20]);
    expect(tokens(usage(r, "researcher"))).toEqual([250, 50]);
    expect(usage(r, "researcher").parentAgent).toBe("lead");
    expect(r.bySpan.get("c2")?.agentPath).toEqual(["lead", "researcher"]);
    expect(tokens(r.totals)).toEqual([350, 70]);
  });

  it("an agent nested under an LLM span does not make that LLM span a wrapper", () => {
    const r = attributeAgents(trace(agent("lead", null, "lead"), llm("c1", "lead", 100, 20), agent("sub", "c1", "sub"), llm("c2", "sub", 30, 5)));
    expect(usage(r, "lead")).toMatchObject({ llmCalls: 1, inputTokens: 100, outputTokens: 20 });
    expect(usage(r, "sub")).toMatchObject({ llmCalls: 1, inputTokens: 30, outputTokens: 5 });
  });

  it("a parent with only run totals keeps them when its llm calls are all inside a nested agent", () => {
    const r = attributeAgents(
      trace(agent("lead", null, "lead", { inputTokens: 40, outputTokens: 4 }), tool("t", "lead", "ask"), agent("sub", "t", "sub"), llm("c", "sub", 30, 3)),
    );
    expect(tokens(usage(r, "lead"))).toEqual([40, 4]);
    expect(tokens(usage(r, "sub"))).toEqual([30, 3]);
  });

  it("per-agent totals equal the sum of each agent's own model calls", () => {
    const r = attributeAgents(
      trace(
        { spanId: "root", parentSpanId: null },
        agent("sup", "root", "supervisor", { inputTokens: 999, outputTokens: 99 }),
        llm("s1", "sup", 120, 12),
        llm("s1p", "s1", 120, 12),
        tool("h", "sup", "transfer_to_coder", { operation: "handoff", handoffTo: "coder" }),
        agent("cod", "root", "coder"),
        llm("k1", "cod", 300, 60),
        tool("run", "cod", "run_tests"),
        agent("rev", "run", "reviewer", { inputTokens: 45, outputTokens: 9 }),
        llm("k2", "cod", 200, 40),
      ),
    );
    // Model calls: supervisor 120/12 (s1p), coder 300/60 + 200/40, reviewer run totals only 45/9.
    expect(r.agents.map((a) => [a.name, a.inputTokens, a.outputTokens])).toEqual([
      ["supervisor", 120, 12],
      ["coder", 500, 100],
      ["reviewer", 45, 9],
    ]);
    const sum = r.agents.reduce((acc, a) => [acc[0]! + a.inputTokens, acc[1]! + a.outputTokens], [0, 0]);
    expect(sum).toEqual(tokens(r.totals));
    expect(tokens(r.totals)).toEqual([665, 121]);
  });
});

describe("tree robustness", () => {
  it("lists orphans and several roots as provisional roots", () => {
    const r = attributeAgents(
      trace(agent("a", null, "lead"), llm("l", "a", 1, 1), llm("o", "missing00000000", 5, 1, { agentName: "lead" }), { spanId: "r2", parentSpanId: null }),
    );
    expect(r.roots).toEqual(["a", "o", "r2"]);
    expect(r.orphans).toEqual(["o"]);
    expect(r.bySpan.get("o")).toMatchObject({ depth: 0, agentKey: "name:lead" });
    expect(r.bySpan.size).toBe(4);
  });

  it("terminates on parent cycles and self-parents, and keeps every span", () => {
    const r = attributeAgents(
      trace({ spanId: "x", parentSpanId: "y" }, { spanId: "y", parentSpanId: "x" }, { spanId: "z", parentSpanId: "x" }, { spanId: "s", parentSpanId: "s" }),
    );
    expect(r.bySpan.size).toBe(4);
    expect(r.roots).toHaveLength(2);
    expect(r.roots).toContain("s");
    expect(r.orphans).toEqual([]);
    const depthZ = r.bySpan.get("z")?.depth ?? -1;
    expect(depthZ).toBeGreaterThanOrEqual(1);
  });

  it("keeps the first of duplicate span ids, and accepts an empty trace", () => {
    const spans = trace(agent("a", null, "lead"), llm("l", "a", 10, 1));
    const r = attributeAgents([...spans, { ...(spans[1] as NormalizedSpan) }]);
    expect(tokens(r.totals)).toEqual([10, 1]);
    const empty = attributeAgents([]);
    expect(empty).toMatchObject({ agents: [], handoffs: [], roots: [], orphans: [] });
    expect(empty.totals).toEqual({ inputTokens: 0, outputTokens: 0, cachedTokens: 0, cost: null });
  });
});
