import { describe, expect, it } from "vitest";
import type { Attributes, DecodedSpan } from "@crux/core";
import { decodedSpan } from "@crux/core/testing";
import { normalizeSpan } from "../src/normalize/index.ts";

// Call sites name the span and its attributes; the rest comes from the shared fixed-id builder.
const span = (name: string, attributes: Attributes = {}, over: Partial<DecodedSpan> = {}): DecodedSpan => decodedSpan({ name, attributes, ...over });

describe("OpenInference (semconv 0.1.32)", () => {
  it("reads an LLM span with tokens and cost", () => {
    const s = normalizeSpan(
      span("ChatOpenAI", {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o-mini",
        "llm.provider": "openai",
        "llm.system": "openai",
        "llm.token_count.prompt": 200,
        "llm.token_count.completion": 40,
        "llm.token_count.prompt_details.cache_read": 128,
        "llm.cost.total": 0.00123,
        "session.id": "thread-9",
      }),
    );
    expect(s).toMatchObject({
      operation: "llm",
      convention: "openinference",
      model: "gpt-4o-mini",
      provider: "openai",
      inputTokens: 200,
      outputTokens: 40,
      cachedTokens: 128,
      cost: 0.00123,
      conversationId: "thread-9",
    });
  });

  it("reads agent spans by agent.name, else graph.node.id (CrewAI)", () => {
    expect(normalizeSpan(span("Triage", { "openinference.span.kind": "AGENT", "agent.name": "Triage" }))).toMatchObject({
      operation: "agent",
      agentName: "Triage",
    });
    const crew = normalizeSpan(span("Researcher.research._execute_core", { "openinference.span.kind": "agent", "graph.node.id": "Researcher" }));
    expect(crew).toMatchObject({ operation: "agent", agentName: "Researcher" });
  });

  it("reads tool spans", () => {
    const s = normalizeSpan(span("get_weather", { "openinference.span.kind": "TOOL", "tool.name": "get_weather", "tool.id": "call_1" }));
    expect(s).toMatchObject({ operation: "tool", toolName: "get_weather", toolCallId: "call_1" });
  });

  it("reads OpenAI Agents handoff spans (TOOL named `handoff to X`)", () => {
    const s = normalizeSpan(span("handoff to Billing", { "openinference.span.kind": "TOOL", "input.value": "Triage", "output.value": "Billing" }));
    expect(s).toMatchObject({ operation: "handoff", convention: "openinference", handoffFrom: "Triage", handoffTo: "Billing" });
  });

  it("reads the JS bridge's JSON handoff values, and its workflow root AGENT span is not an agent", () => {
    const scope = { name: "@arizeai/openinference-instrumentation-openai-agents", version: "0.2.15", attributes: {} };
    const h = normalizeSpan(
      span(
        "handoff to billing_specialist",
        {
          "openinference.span.kind": "TOOL",
          "tool.name": "handoff_to_billing_specialist",
          "input.value": '{"from_agent":"triage"}',
          "output.value": '{"to_agent":"billing_specialist"}',
          "llm.system": "openai",
        },
        { scope },
      ),
    );
    expect(h).toMatchObject({ operation: "handoff", handoffFrom: "triage", handoffTo: "billing_specialist", provider: null });
    expect(normalizeSpan(span("support_desk", { "openinference.span.kind": "AGENT" }, { scope })).operation).toBe("other");
    expect(normalizeSpan(span("triage", { "openinference.span.kind": "AGENT", "graph.node.id": "triage" }, { scope }))).toMatchObject({
      operation: "agent",
      agentName: "triage",
    });
  });

  it("names the LangGraph agent by the first checkpoint namespace segment, never an internal node", () => {
    const meta = (ns: string, node: string) => JSON.stringify({ langgraph_checkpoint_ns: ns, langgraph_node: node, langgraph_step: 2 });
    const inWorker = normalizeSpan(span("ScriptedChatModel", { "openinference.span.kind": "LLM", metadata: meta("research_expert:1f35|agent:4faa", "agent") }));
    expect(inWorker.agentName).toBe("research_expert");
    expect(normalizeSpan(span("__start__", { "openinference.span.kind": "CHAIN", metadata: meta("__start__:19c4", "__start__") })).agentName).toBeNull();
    const traceloop = normalizeSpan(span("tools.task", { "traceloop.association.properties.langgraph_checkpoint_ns": "math_expert:dcbc|tools:3d26" }));
    expect(traceloop.agentName).toBe("math_expert");
  });

  it("reads CrewAI delegation: target is the coworker argument", () => {
    const s = normalizeSpan(
      span("Delegate work to coworker", {
        "openinference.span.kind": "TOOL",
        "tool.name": "Delegate work to coworker",
        "input.value": JSON.stringify({ task: "find sources", context: "…", coworker: "Senior Researcher" }),
      }),
    );
    expect(s).toMatchObject({ operation: "handoff", toolName: "Delegate work to coworker", handoffTo: "Senior Researcher" });
  });

  it("reads LangGraph transfer tools and the langgraph_node metadata hint", () => {
    const s = normalizeSpan(
      span("transfer_to_research_expert", {
        "openinference.span.kind": "TOOL",
        "tool.name": "transfer_to_research_expert",
        metadata: JSON.stringify({ langgraph_node: "supervisor", langgraph_step: 3, thread_id: "t1" }),
      }),
    );
    expect(s).toMatchObject({ operation: "handoff", handoffTo: "research_expert", agentName: "supervisor" });
  });

  it("classifies CHAIN and EMBEDDING spans", () => {
    expect(normalizeSpan(span("LangGraph", { "openinference.span.kind": "CHAIN" })).operation).toBe("other");
    const e = normalizeSpan(span("embed", { "openinference.span.kind": "EMBEDDING", "embedding.model_name": "text-embedding-3-small" }));
    expect(e).toMatchObject({ operation: "llm", model: "text-embedding-3-small" });
  });
});

describe("OpenLLMetry", () => {
  it("reads old-style (<=0.54) LLM spans: llm.request.type, capitalised gen_ai.system, prompt tokens", () => {
    const s = normalizeSpan(
      span("anthropic.chat", {
        "llm.request.type": "chat",
        "gen_ai.system": "Anthropic",
        "gen_ai.request.model": "claude-3-5-sonnet",
        "gen_ai.usage.prompt_tokens": 500,
        "gen_ai.usage.completion_tokens": 80,
        "gen_ai.usage.cache_read_input_tokens": 300,
        "llm.usage.total_tokens": 580,
      }),
    );
    expect(s).toMatchObject({
      operation: "llm",
      convention: "openllmetry",
      provider: "anthropic",
      model: "claude-3-5-sonnet",
      inputTokens: 500,
      outputTokens: 80,
      cachedTokens: 300,
    });
  });

  it("reads new-style (>=0.55) spans with gen_ai.operation.name", () => {
    const s = normalizeSpan(
      span("openai.chat", {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 2,
        "traceloop.workflow.name": "support",
        "gen_ai.agent.name": "Billing",
      }),
    );
    expect(s).toMatchObject({ operation: "llm", convention: "openllmetry", provider: "openai", agentName: "Billing" });
  });

  it("reads decorator spans: agent, tool, and workflow/task that claim invoke_agent", () => {
    expect(normalizeSpan(span("research.agent", { "traceloop.span.kind": "agent", "traceloop.entity.name": "research" }))).toMatchObject({
      operation: "agent",
      convention: "openllmetry",
      agentName: "research",
    });
    expect(normalizeSpan(span("search.tool", { "traceloop.span.kind": "tool", "traceloop.entity.name": "search" }))).toMatchObject({
      operation: "tool",
      toolName: "search",
    });
    const task = normalizeSpan(span("write.task", { "gen_ai.operation.name": "invoke_agent", "traceloop.span.kind": "task" }));
    expect(task.operation).toBe("other");
    const workflow = normalizeSpan(span("crewai.workflow", { "gen_ai.operation.name": "invoke_agent", "traceloop.span.kind": "workflow" }));
    expect(workflow.operation).toBe("other");
  });

  it("treats framework values as no provider (CrewAI agent with run totals)", () => {
    const s = normalizeSpan(
      span("Researcher.agent", {
        "gen_ai.operation.name": "invoke_agent",
        "traceloop.span.kind": "agent",
        "gen_ai.agent.name": "Researcher",
        "gen_ai.provider.name": "crewai",
        "gen_ai.usage.input_tokens": 900,
        "gen_ai.usage.output_tokens": 100,
      }),
    );
    expect(s).toMatchObject({ operation: "agent", provider: null, agentName: "Researcher", inputTokens: 900, outputTokens: 100 });
  });

  it("reads openai-agents handoff spans, from attributes or from the `{from} → {to}.handoff` name", () => {
    const withAttrs = normalizeSpan(
      span("Triage → Billing.handoff", {
        "traceloop.span.kind": "handoff",
        "gen_ai.operation.name": "handoff",
        "gen_ai.handoff.from_agent": "Triage",
        "gen_ai.handoff.to_agent": "Billing",
        "gen_ai.agent.name": "Triage",
      }),
    );
    expect(withAttrs).toMatchObject({ operation: "handoff", convention: "openllmetry", handoffFrom: "Triage", handoffTo: "Billing" });
    const nameOnly = normalizeSpan(span("Triage → Refunds.handoff", { "traceloop.span.kind": "handoff" }));
    expect(nameOnly).toMatchObject({ operation: "handoff", handoffFrom: "Triage", handoffTo: "Refunds" });
  });

  it("reads LangGraph goto spans and the langgraph_node association property", () => {
    const s = normalizeSpan(
      span("goto researcher", {
        "gen_ai.operation.name": "goto",
        "langgraph.command.source_node": "supervisor",
        "langgraph.command.goto_node": "researcher",
        "traceloop.association.properties.langgraph_node": "supervisor",
        "traceloop.association.properties.thread_id": "thread-1",
      }),
    );
    expect(s).toMatchObject({ operation: "handoff", handoffTo: "researcher", agentName: "supervisor", conversationId: "thread-1" });
  });
});

describe("Vercel AI SDK", () => {
  it("reads legacy ai.generateText as the agent, named by functionId (ai 4.x tokens)", () => {
    const s = normalizeSpan(
      span("ai.generateText", {
        "ai.operationId": "ai.generateText",
        "operation.name": "ai.generateText writer",
        "ai.telemetry.functionId": "writer",
        "ai.model.id": "gpt-4o",
        "ai.model.provider": "openai.chat",
        "ai.usage.promptTokens": 50,
        "ai.usage.completionTokens": 12,
        "ai.telemetry.metadata.sessionId": "s-1",
      }),
    );
    expect(s).toMatchObject({
      operation: "agent",
      convention: "vercel_ai",
      agentName: "writer",
      model: "gpt-4o",
      provider: "openai",
      inputTokens: 50,
      outputTokens: 12,
      conversationId: "s-1",
    });
  });

  it("reads legacy .doGenerate provider calls (ai 6.x tokens) and tool calls", () => {
    const s = normalizeSpan(
      span("ai.generateText.doGenerate", {
        "ai.operationId": "ai.generateText.doGenerate",
        "ai.model.id": "gpt-4o",
        "ai.model.provider": "openai.chat",
        "gen_ai.system": "openai.chat",
        "gen_ai.response.model": "gpt-4o-2024-08-06",
        "ai.usage.inputTokens": 50,
        "ai.usage.outputTokens": 12,
        "ai.usage.cachedInputTokens": 20,
      }),
    );
    expect(s).toMatchObject({ operation: "llm", model: "gpt-4o-2024-08-06", provider: "openai", inputTokens: 50, cachedTokens: 20 });
    const tool = normalizeSpan(span("ai.toolCall", { "ai.operationId": "ai.toolCall", "ai.toolCall.name": "search", "ai.toolCall.id": "tc_1" }));
    expect(tool).toMatchObject({ operation: "tool", convention: "vercel_ai", toolName: "search", toolCallId: "tc_1" });
    expect(normalizeSpan(span("ai.embed", { "ai.operationId": "ai.embed" })).operation).toBe("other");
  });

  it("reads v7 @ai-sdk/otel: invoke_agent root named by functionId, never by the model in the span name", () => {
    const root = normalizeSpan(
      span("invoke_agent gpt-4o", {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "writer",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 70,
      }),
    );
    expect(root).toMatchObject({ operation: "agent", agentName: "writer", provider: "openai", inputTokens: 70 });
    const unnamed = normalizeSpan(span("invoke_agent gpt-4o", { "gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "gpt-4o" }));
    expect(unnamed.agentName).not.toBe("gpt-4o");
    const step = normalizeSpan(
      span("chat gpt-4o", { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 30, "gen_ai.usage.cache_read.input_tokens": 8 }),
    );
    expect(step).toMatchObject({ operation: "llm", model: "gpt-4o", inputTokens: 30, cachedTokens: 8 });
  });
});

describe("logfire (OpenAI Agents integration)", () => {
  it("classifies by message template and reads names", () => {
    const agent = normalizeSpan(
      span("Agent run: {name!r}", {
        "logfire.msg_template": "Agent run: {name!r}",
        "logfire.msg": "Agent run: 'Triage'",
        name: "Triage",
        "gen_ai.system": "openai",
      }),
    );
    expect(agent).toMatchObject({ operation: "agent", convention: "logfire", agentName: "Triage" });
    const chat = normalizeSpan(
      span("Chat completion with {gen_ai.request.model!r}", {
        "logfire.msg_template": "Chat completion with {gen_ai.request.model!r}",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.system": "openai",
        "gen_ai.usage.input_tokens": 15,
        "gen_ai.usage.output_tokens": 5,
      }),
    );
    expect(chat).toMatchObject({ operation: "llm", convention: "logfire", model: "gpt-4o", inputTokens: 15, outputTokens: 5 });
    const fn = normalizeSpan(span("Function: {name}", { "logfire.msg_template": "Function: {name}", name: "lookup_order" }));
    expect(fn).toMatchObject({ operation: "tool", toolName: "lookup_order" });
  });

  it("reads handoffs from attributes, else from the message", () => {
    const template = "Handoff: {from_agent} → {to_agent}";
    const s = normalizeSpan(span(template, { "logfire.msg_template": template, from_agent: "Triage", to_agent: "Billing" }));
    expect(s).toMatchObject({ operation: "handoff", handoffFrom: "Triage", handoffTo: "Billing" });
    const msgOnly = normalizeSpan(span(template, { "logfire.msg_template": template, "logfire.msg": "Handoff: Triage → Refunds" }));
    expect(msgOnly).toMatchObject({ handoffFrom: "Triage", handoffTo: "Refunds" });
  });
});

describe("Mastra (@mastra/otel-exporter for @mastra/core 0.24.x)", () => {
  const scope = { name: "@mastra/otel", version: "1.0.0", attributes: {} };

  it("reads agent.run spans: name from gen_ai.agent.id", () => {
    const s = normalizeSpan(
      span(
        "agent.weatherAgent",
        { "gen_ai.operation.name": "agent.run", "mastra.span.type": "agent_run", "agent.id": "weatherAgent", "gen_ai.agent.id": "weatherAgent" },
        { scope },
      ),
    );
    expect(s).toMatchObject({ operation: "agent", convention: "mastra", agentName: "weatherAgent", agentId: "weatherAgent" });
  });

  it("reads model generations: provider id prefix, tokens incl. cached_input_tokens", () => {
    const s = normalizeSpan(
      span(
        "chat gpt-4o-mini",
        {
          "gen_ai.operation.name": "chat",
          "mastra.span.type": "model_generation",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.system": "openai.chat",
          "gen_ai.usage.input_tokens": 400,
          "gen_ai.usage.output_tokens": 60,
          "gen_ai.usage.total_tokens": 460,
          "gen_ai.usage.cached_input_tokens": 256,
        },
        { scope, kind: 3 },
      ),
    );
    expect(s).toMatchObject({
      operation: "llm",
      convention: "mastra",
      model: "gpt-4o-mini",
      provider: "openai",
      inputTokens: 400,
      outputTokens: 60,
      cachedTokens: 256,
    });
  });

  it("reads tool.execute spans, and model.step spans are structure, not calls", () => {
    const tool = normalizeSpan(
      span(
        "tool.execute weatherTool",
        { "gen_ai.operation.name": "tool.execute", "mastra.span.type": "tool_call", "gen_ai.tool.name": "weatherTool" },
        { scope },
      ),
    );
    expect(tool).toMatchObject({ operation: "tool", convention: "mastra", toolName: "weatherTool" });
    const step = normalizeSpan(span("model.step", { "gen_ai.operation.name": "model.step", "mastra.span.type": "model_step" }, { scope }));
    expect(step).toMatchObject({ operation: "other", convention: "mastra" });
  });

  it("classifies by operation name and span name without mastra.span.type", () => {
    expect(normalizeSpan(span("agent.run", { "gen_ai.operation.name": "agent.run", "gen_ai.agent.id": "planner" }))).toMatchObject({
      operation: "agent",
      convention: "mastra",
      agentName: "planner",
    });
    expect(normalizeSpan(span("agent.supportAgent", {}, { scope }))).toMatchObject({ operation: "agent", agentName: "supportAgent" });
    expect(normalizeSpan(span("tool.execute lookup", {}, { scope }))).toMatchObject({ operation: "tool", toolName: "lookup" });
  });

  it("reads Mastra error info", () => {
    const s = normalizeSpan(
      span(
        "tool.execute weatherTool",
        {
          "gen_ai.operation.name": "tool.execute",
          "gen_ai.tool.name": "weatherTool",
          error: true,
          "error.type": "TOOL_EXECUTION_FAILED",
          "error.message": "timeout",
        },
        { scope, status: { code: 2, message: "timeout" } },
      ),
    );
    expect(s).toMatchObject({ operation: "tool", isError: true, errorType: "TOOL_EXECUTION_FAILED" });
  });
});
