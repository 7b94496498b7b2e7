/**
 * Attribution rules the Python tracers need (docs/conventions.md §5, §6.2), each on the
 * smallest trace that shows it; the recorded exports are in packages/otlp's golden-python.
 */
import { describe, expect, it } from "vitest";
import { attributeAgents } from "../src/attribution/index.ts";
import { buildTrajectories } from "../src/trajectory/build.ts";
import { agentSpec as agent, handoffSpec as handoff, llmSpec as llm, orderedTrace as trace, toolSpec as tool } from "../src/testing/index.ts";

const summary = (spans: Parameters<typeof attributeAgents>[0]) =>
  Object.fromEntries(
    attributeAgents(spans).agents.map((a) => [
      a.name,
      { input: a.inputTokens, llm: a.llmCalls, tools: a.toolCalls, errors: a.errors, reported: a.tokensReported },
    ]),
  );
const edges = (spans: Parameters<typeof attributeAgents>[0]) => attributeAgents(spans).handoffs.map((e) => [e.from, e.to, e.via]);

describe("attribution for the Python tracers", () => {
  it("an agent id shared by differently named agents (the OTel contrib default 'agent') does not merge them", () => {
    const spans = trace(
      agent("p", null, "planner", { agentId: "agent" }),
      llm("c1", "p", 100, 10, { agentName: "OpenAI Agent", agentId: "agent" }),
      agent("r", "p", "researcher", { agentId: "agent" }),
      llm("c2", "r", 200, 20, { agentName: "OpenAI Agent", agentId: "agent" }),
    );
    expect(summary(spans)).toEqual({
      planner: { input: 100, llm: 1, tools: 0, errors: 0, reported: true },
      researcher: { input: 200, llm: 1, tools: 0, errors: 0, reported: true },
    });
    expect(attributeAgents(spans).agents.map((a) => a.key)).toEqual(["name:planner", "name:researcher"]);
    // One agent seen twice with its own id stays one agent, keyed by the id.
    const twice = trace(agent("a", null, "planner", { agentId: "p-1" }), agent("b", null, "planner", { agentId: "p-1" }));
    expect(attributeAgents(twice).agents.map((a) => a.key)).toEqual(["p-1"]);
  });

  it("a handoff source that names no agent (a tracer default) defers to the agent that owns the span", () => {
    const spans = trace(agent("p", null, "planner"), handoff("h", "p", { handoffFrom: "OpenAI Agent", handoffTo: "booker" }), agent("b", null, "booker"));
    expect(edges(spans)).toEqual([["planner", "booker", "handoff_span"]]);
  });

  it("a delegation with model calls and no agent span below (CrewAI's coworker) makes the receiver an agent owning them", () => {
    const spans = trace(
      agent("p", null, "planner"),
      llm("c1", "p", 101, 11),
      handoff("d", "p", { toolName: "Delegate work to coworker", handoffTo: "Carrier Researcher" }),
      llm("c2", "d", 103, 13),
      tool("q", "d", "get_quote", { isError: true }),
      llm("c3", "p", 106, 16),
    );
    const a = attributeAgents(spans);
    expect(summary(spans)).toEqual({
      planner: { input: 207, llm: 2, tools: 0, errors: 0, reported: true },
      "Carrier Researcher": { input: 103, llm: 1, tools: 1, errors: 1, reported: true },
    });
    expect(a.agents.find((x) => x.name === "Carrier Researcher")?.parentAgent).toBe("planner");
    expect(a.bySpan.get("q")?.agentPath).toEqual(["planner", "Carrier Researcher"]);
    expect(a.bySpan.get("d")?.agentPath).toEqual(["planner"]);
    expect(edges(spans)).toEqual([["planner", "Carrier Researcher", "transfer_tool"]]);
    // A transfer with no model call below it stays a plain handoff: no agent is made up.
    const plain = trace(agent("p", null, "planner"), handoff("t", "p", { toolName: "transfer_to_booker", handoffTo: "booker" }), tool("x", "t", "noop"));
    expect(Object.keys(summary(plain))).toEqual(["planner"]);
  });

  it("a tool or handoff traced by two conventions, one inside the other, is one call, one failure, one handoff and one step", () => {
    const spans = trace(
      agent("r", null, "researcher"),
      tool("oi", "r", "get_quote", { name: "researcher.get_quote", convention: "openinference" }),
      tool("gen", "oi", "get_quote", { isError: true, errorType: "QuoteServiceUnavailable" }),
      handoff("t1", "r", { toolName: "transfer_to_planner", handoffTo: "planner" }),
      handoff("t2", "t1", { toolName: "transfer_to_planner", handoffTo: "planner" }),
      agent("p", null, "planner"),
    );
    const a = attributeAgents(spans);
    expect(summary(spans).researcher).toEqual({ input: 0, llm: 0, tools: 1, errors: 1, reported: false });
    expect(a.bySpan.get("gen")?.duplicateOf).toBe("oi");
    expect(a.bySpan.get("t2")?.duplicateOf).toBe("t1");
    expect(edges(spans)).toEqual([["researcher", "planner", "transfer_tool"]]);
    const steps = buildTrajectories(spans, a).steps.map((s) => [s.spanId, s.kind, s.isError]);
    expect(steps).toEqual([
      ["oi", "tool", true],
      ["t1", "handoff", false],
    ]);
  });

  it("one failure reported by a step and by its tool is counted once, where it happened", () => {
    const spans = trace(
      agent("r", null, "researcher"),
      { spanId: "step", parentSpanId: "r", name: "Step 2", isError: true, errorType: "AgentToolExecutionError" },
      tool("q", "step", "get_quote", { isError: true, errorType: "QuoteServiceUnavailable" }),
    );
    const a = attributeAgents(spans);
    expect(a.agents[0]?.errors).toBe(1);
    expect([a.bySpan.get("step")?.countedError, a.bySpan.get("q")?.countedError]).toEqual([false, true]);
  });

  it("a back link that names no agent (AutoGen's 'start') is not a handoff", () => {
    const spans = trace(
      agent("p", null, "planner", { content: { handoffBackLink: "start" } }),
      agent("r", null, "researcher", { content: { handoffBackLink: "planner" } }),
    );
    expect(edges(spans)).toEqual([["planner", "researcher", "back_link"]]);
  });

  it("an agent none of whose spans carries a token count has its tokens not reported (AutoGen's built-in tracing)", () => {
    const spans = trace(agent("p", null, "planner"), tool("c", "p", "check_customs"), agent("b", null, "booker"), llm("m", "b", 0, 0));
    const a = attributeAgents(spans).agents;
    expect(a.map((x) => [x.name, x.tokensReported, x.inputTokens])).toEqual([
      ["planner", false, 0],
      // A model call that reports 0 tokens is a report of 0.
      ["booker", true, 0],
    ]);
  });
});
