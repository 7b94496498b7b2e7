import { describe, expect, it } from "vitest";
import type { Attributes, DecodedSpan } from "@crux/core";
import { decodedSpan, exceptionEvent as exception } from "@crux/core/testing";
import { normalizeSpan } from "../src/normalize/index.ts";

// Call sites name the span and its attributes; the rest comes from the shared fixed-id builder.
const span = (name: string, attributes: Attributes = {}, over: Partial<DecodedSpan> = {}): DecodedSpan => decodedSpan({ name, attributes, ...over });

describe("pydantic-ai (v2.33)", () => {
  it("reads aggregated usage on the agent span only", () => {
    const agent = normalizeSpan(
      span("invoke_agent support", {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "support",
        "gen_ai.agent.call.id": "run-1",
        "gen_ai.conversation.id": "conv-1",
        "gen_ai.aggregated_usage.input_tokens": 700,
        "gen_ai.aggregated_usage.output_tokens": 90,
      }),
    );
    expect(agent).toMatchObject({ operation: "agent", agentName: "support", agentId: "run-1", inputTokens: 700, outputTokens: 90, conversationId: "conv-1" });
    const notAgent = normalizeSpan(span("step", { "gen_ai.aggregated_usage.input_tokens": 700 }));
    expect(notAgent.inputTokens).toBeNull();
  });

  it("reads chat spans (provider.name and system both set) and back-compat cache detail", () => {
    const s = normalizeSpan(
      span("chat gpt-4o", {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 300,
        "gen_ai.usage.output_tokens": 45,
        "gen_ai.usage.details.cache_read_tokens": 100,
      }),
    );
    expect(s).toMatchObject({ operation: "llm", provider: "openai", inputTokens: 300, outputTokens: 45, cachedTokens: 100 });
  });

  it("reads tool spans with baggage-propagated agent name, and v2 `agent run` spans", () => {
    const tool = normalizeSpan(
      span("execute_tool lookup", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.agent.name": "support" }),
    );
    expect(tool).toMatchObject({ operation: "tool", toolName: "lookup", agentName: "support" });
    const v2 = normalizeSpan(span("agent run", { agent_name: "support", model_name: "gpt-4o" }));
    expect(v2).toMatchObject({ operation: "agent", agentName: "support" });
  });
});

describe("Strands Agents (v1.40)", () => {
  it("reads the agent span with run totals and no provider (framework value)", () => {
    const s = normalizeSpan(
      span("invoke_agent Researcher", {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "Researcher",
        "gen_ai.system": "strands-agents",
        "gen_ai.request.model": "us.anthropic.claude-sonnet-4",
        "gen_ai.usage.prompt_tokens": 1000,
        "gen_ai.usage.input_tokens": 1000,
        "gen_ai.usage.completion_tokens": 200,
        "gen_ai.usage.output_tokens": 200,
        "gen_ai.usage.total_tokens": 1200,
      }),
    );
    expect(s).toMatchObject({ operation: "agent", agentName: "Researcher", provider: null, inputTokens: 1000, outputTokens: 200 });
  });

  it("reads `chat` spans with the non-spec cache key", () => {
    const s = normalizeSpan(
      span("chat", {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "strands-agents",
        "gen_ai.request.model": "us.anthropic.claude-sonnet-4",
        "gen_ai.usage.input_tokens": 400,
        "gen_ai.usage.output_tokens": 80,
        "gen_ai.usage.cache_read_input_tokens": 250,
      }),
    );
    expect(s).toMatchObject({ operation: "llm", provider: null, model: "us.anthropic.claude-sonnet-4", cachedTokens: 250 });
  });

  it("reads swarm handoffs: handoff_to_agent(agent_name=...)", () => {
    const s = normalizeSpan(
      span("execute_tool handoff_to_agent", {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "handoff_to_agent",
        "gen_ai.tool.call.id": "tooluse_1",
        "gen_ai.tool.call.arguments": { agent_name: "Writer", message: "draft it" },
      }),
    );
    expect(s).toMatchObject({ operation: "handoff", toolName: "handoff_to_agent", handoffTo: "Writer", toolCallId: "tooluse_1" });
    expect(normalizeSpan(span("invoke_swarm", { "gen_ai.operation.name": "invoke_swarm", "gen_ai.agent.name": "swarm" })).operation).toBe("other");
  });
});

describe("Google ADK", () => {
  const scope = { name: "gcp.vertex.agent", version: "1.4.2", attributes: {} };

  it("reads call_llm by fallback, with the framework value not taken as provider", () => {
    const s = normalizeSpan(
      span(
        "call_llm",
        {
          "gen_ai.system": "gcp.vertex.agent",
          "gen_ai.request.model": "gemini-2.0-flash",
          "gen_ai.usage.input_tokens": 640,
          "gen_ai.usage.output_tokens": 32,
          "gcp.vertex.agent.session_id": "sess-42",
        },
        { scope },
      ),
    );
    expect(s).toMatchObject({
      operation: "llm",
      convention: "fallback",
      provider: null,
      model: "gemini-2.0-flash",
      inputTokens: 640,
      conversationId: "sess-42",
    });
  });

  it("reads transfer_to_agent: target from the agent_name argument, `<not specified>` call id ignored", () => {
    const s = normalizeSpan(
      span(
        "execute_tool transfer_to_agent",
        {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "transfer_to_agent",
          "gen_ai.tool.type": "FunctionTool",
          "gen_ai.tool.call.id": "<not specified>",
          "gcp.vertex.agent.tool_call_args": JSON.stringify({ agent_name: "billing_agent" }),
        },
        { scope },
      ),
    );
    expect(s).toMatchObject({ operation: "handoff", toolName: "transfer_to_agent", handoffTo: "billing_agent", toolCallId: null });
  });

  it("reads invoke_agent spans", () => {
    const s = normalizeSpan(span("invoke_agent root_agent", { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "root_agent" }, { scope }));
    expect(s).toMatchObject({ operation: "agent", agentName: "root_agent" });
  });
});

describe("Microsoft Agent Framework handoff tools", () => {
  it("takes the target from the handoff_to_ suffix", () => {
    const s = normalizeSpan(
      span("execute_tool handoff_to_refund_agent", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "handoff_to_refund_agent" }),
    );
    expect(s).toMatchObject({ operation: "handoff", handoffTo: "refund_agent" });
  });
});

describe("errors", () => {
  const tool = (over: Partial<DecodedSpan>, attrs: Attributes = {}) =>
    normalizeSpan(span("execute_tool search", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search", ...attrs }, over));

  it("a real tool error is a failure: type from the exception event", () => {
    const s = tool({ status: { code: 2, message: "boom" }, events: [exception("ValueError", "boom")] });
    expect(s).toMatchObject({ isError: true, errorType: "ValueError" });
  });

  it("error.type wins over the exception type; status message is the last resort", () => {
    expect(tool({ status: { code: 2, message: "x" }, events: [exception("ValueError", "x")] }, { "error.type": "timeout" }).errorType).toBe("timeout");
    expect(tool({ status: { code: 2, message: "rate limited" } }).errorType).toBe("rate limited");
    expect(tool({ status: { code: 2, message: "" } }).errorType).toBe("error");
  });

  it("an exception event or error.type without ERROR status is a failure unless the status is OK", () => {
    expect(tool({ events: [exception("KeyError", "k")] }).isError).toBe(true);
    expect(tool({}, { "error.type": "500" }).isError).toBe(true);
    expect(tool({ status: { code: 1, message: "" }, events: [exception("KeyError", "k")] }).isError).toBe(false);
    expect(tool({}).isError).toBe(false);
  });

  it("LangGraph handoff control flow (ParentCommand) is not a failure", () => {
    const s = normalizeSpan(
      span(
        "transfer_to_research_expert",
        { "openinference.span.kind": "TOOL", "tool.name": "transfer_to_research_expert" },
        {
          status: { code: 2, message: "ParentCommand(Command(graph='__parent__', goto='research_expert'))" },
          events: [exception("langgraph.errors.ParentCommand", "Command(graph='__parent__', goto='research_expert', update={...})")],
        },
      ),
    );
    expect(s).toMatchObject({ operation: "handoff", handoffTo: "research_expert", isError: false, errorType: null });
  });

  it("GraphBubbleUp, GraphInterrupt and Command(goto=...) are control flow too", () => {
    expect(tool({ status: { code: 2, message: "GraphBubbleUp()" } }).isError).toBe(false);
    expect(tool({ status: { code: 2, message: "" } }, { "error.type": "GraphInterrupt" }).isError).toBe(false);
    expect(tool({ status: { code: 2, message: "" }, events: [exception("Exception", "Command(goto='writer')")] }).isError).toBe(false);
    // A message that only mentions a command is still a real failure.
    expect(tool({ status: { code: 2, message: "Command failed: exit 1" } }).isError).toBe(true);
  });
});

describe("Python tracers (docs/instrumenting.md, Python frameworks)", () => {
  const scope = (name: string) => ({ scope: { name, version: "", attributes: {} } });

  it("OTel contrib OpenAI Agents: the workflow root (invoke_agent without an agent name) is not an agent; invoke_agent <name> is", () => {
    const contrib = scope("opentelemetry.instrumentation.openai_agents");
    expect(normalizeSpan(span("logistics_workflow_base", { "gen_ai.operation.name": "invoke_agent" }, contrib)).operation).toBe("other");
    expect(
      normalizeSpan(
        span("invoke_agent planner", { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner", "gen_ai.agent.id": "agent" }, contrib),
      ),
    ).toMatchObject({ operation: "agent", agentName: "planner" });
    // Another tracer's unnamed invoke_agent stays an agent (named by its span).
    expect(normalizeSpan(span("run", { "gen_ai.operation.name": "invoke_agent" })).operation).toBe("agent");
  });

  it("LangGraph through OpenInference (Python): AGENT spans inside the graph are not agents; a transfer tool marked AGENT is a handoff", () => {
    const metadata = JSON.stringify({ langgraph_node: "agent", langgraph_checkpoint_ns: "carrier_researcher:1|agent:2" });
    const node = normalizeSpan(span("call_agent", { "openinference.span.kind": "AGENT", metadata }));
    expect(node).toMatchObject({ operation: "other", agentName: "carrier_researcher" });
    const transfer = normalizeSpan(
      span("transfer_to_booking_agent", { "openinference.span.kind": "AGENT", "tool.name": "transfer_to_booking_agent", metadata }),
    );
    expect(transfer).toMatchObject({ operation: "handoff", toolName: "transfer_to_booking_agent", handoffTo: "booking_agent" });
    // An AGENT span outside a graph is still an agent.
    expect(normalizeSpan(span("planner", { "openinference.span.kind": "AGENT", "graph.node.id": "planner" })).operation).toBe("agent");
  });

  it("smolagents: an AGENT span '<agent>.run' names the agent; tools are named by tool.name, not the span", () => {
    expect(normalizeSpan(span("carrier_researcher.run", { "openinference.span.kind": "AGENT", "llm.token_count.prompt": 312 }))).toMatchObject({
      operation: "agent",
      agentName: "carrier_researcher",
      inputTokens: 312,
    });
    expect(normalizeSpan(span("SimpleTool", { "openinference.span.kind": "TOOL", "tool.name": "get_quote" }))).toMatchObject({
      operation: "tool",
      toolName: "get_quote",
    });
  });
});
