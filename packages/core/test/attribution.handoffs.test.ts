import { describe, expect, it } from "vitest";
import { attributeAgents } from "../src/attribution/index.ts";
import type { HandoffEdge } from "../src/attribution/types.ts";
import type { NormalizedSpan } from "../src/span.ts";
import { agentSpec as agent, handoffSpec as handoff, llmSpec as llm, orderedTrace as trace, toolSpec as tool } from "../src/testing/index.ts";

const edges = (spans: NormalizedSpan[]) => attributeAgents(spans).handoffs.map((e: HandoffEdge) => [e.from, e.to, e.via, e.spanId]);

describe("handoff edges", () => {
  it("OpenAI Agents: handoff span under the source, target a later sibling with a back link → one edge", () => {
    const spans = trace(
      { spanId: "wf", parentSpanId: null },
      agent("t", "wf", "Triage"),
      handoff("h", "t", { name: "handoff to Billing", handoffFrom: "Triage", handoffTo: "Billing" }),
      agent("b", "wf", "Billing", { content: { handoffBackLink: "Triage" } }),
    );
    expect(edges(spans)).toEqual([["Triage", "Billing", "handoff_span", "h"]]);
    expect(attributeAgents(spans).handoffs[0]?.startNs).toBe(spans[2]?.startTimeUnixNano);
  });

  it("ADK: transfer_to_agent tool, target nested inside the source → the explicit edge, source = owning agent", () => {
    const spans = trace(
      agent("root", null, "root_agent"),
      llm("c", "root", 10, 1),
      handoff("x", "root", { toolName: "transfer_to_agent", handoffTo: "billing_agent" }),
      agent("b", "root", "billing_agent"),
    );
    expect(edges(spans)).toEqual([["root_agent", "billing_agent", "transfer_tool", "x"]]);
  });

  it("nesting alone (agent under another agent's tool) is a nested_agent edge", () => {
    const spans = trace(agent("lead", null, "lead"), tool("d", "lead", "delegate"), agent("r", "d", "researcher"));
    expect(edges(spans)).toEqual([["lead", "researcher", "nested_agent", "r"]]);
  });

  it("a back link on a sibling agent (OpenLLMetry) is a back_link edge", () => {
    const spans = trace(
      { spanId: "wf", parentSpanId: null },
      agent("a", "wf", "Triage"),
      agent("b", "wf", "Refunds", { content: { handoffBackLink: "Triage" } }),
    );
    expect(edges(spans)).toEqual([["Triage", "Refunds", "back_link", "b"]]);
  });

  it("a back link that restates the nesting parent adds no second edge", () => {
    const spans = trace(agent("a", null, "Crew Lead"), tool("t", "a", "ask"), agent("b", "t", "Writer", { content: { handoffBackLink: "Crew Lead" } }));
    expect(edges(spans)).toEqual([["Crew Lead", "Writer", "nested_agent", "b"]]);
  });

  it("maps written-out names onto agent names (transfer_to_research_agent → Research Agent)", () => {
    const spans = trace(
      agent("s", null, "Supervisor"),
      handoff("h", "s", { toolName: "transfer_to_research_agent", handoffTo: "research_agent" }),
      agent("r", "s", "Research Agent"),
    );
    expect(edges(spans)).toEqual([["Supervisor", "Research Agent", "transfer_tool", "h"]]);
  });

  it("each explicit edge absorbs one implied edge of its pair; the rest are kept, in time order", () => {
    const twiceExplicit = trace(agent("a", null, "A"), handoff("h1", "a", { handoffTo: "B" }), handoff("h2", "a", { handoffTo: "B" }), agent("b", "a", "B"));
    expect(edges(twiceExplicit)).toEqual([
      ["A", "B", "handoff_span", "h1"],
      ["A", "B", "handoff_span", "h2"],
    ]);
    const twiceNested = trace(agent("a", null, "A"), handoff("h1", "a", { handoffTo: "B" }), agent("b1", "a", "B"), agent("b2", "a", "B"));
    expect(edges(twiceNested)).toEqual([
      ["A", "B", "handoff_span", "h1"],
      ["A", "B", "nested_agent", "b2"],
    ]);
  });

  it("LangGraph goto without agent spans: source from the owning propagated name", () => {
    const spans = trace(
      { spanId: "g", parentSpanId: null },
      llm("c", "g", 10, 1, { agentName: "supervisor" }),
      handoff("goto", "g", { name: "goto researcher", handoffTo: "researcher", agentName: "supervisor" }),
      llm("c2", "g", 20, 2, { agentName: "researcher" }),
    );
    expect(edges(spans)).toEqual([["supervisor", "researcher", "handoff_span", "goto"]]);
  });

  it("keeps a handoff whose target is unknown", () => {
    const spans = trace(agent("a", null, "A"), handoff("h", "a", { toolName: "transfer_to_agent" }));
    expect(edges(spans)).toEqual([["A", null, "transfer_tool", "h"]]);
  });
});
