import { describe, expect, it } from "vitest";
import type { Attributes, DecodedSpan } from "@crux/core";
import { decodedSpan } from "@crux/core/testing";
import { normalizeSpan, normalizeSpans } from "../src/normalize/index.ts";

// Call sites name the span and its attributes; the rest comes from the shared fixed-id builder.
const span = (name: string, attributes: Attributes = {}, over: Partial<DecodedSpan> = {}): DecodedSpan => decodedSpan({ name, attributes, ...over });

describe("OTel GenAI, current names (v1.41.0)", () => {
  it("reads an inference span", () => {
    const s = normalizeSpan(
      span("chat gpt-4o", {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o-2024-08-06",
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
        "gen_ai.usage.cache_read.input_tokens": 64,
        "gen_ai.conversation.id": "conv_1",
      }),
    );
    expect(s).toMatchObject({
      operation: "llm",
      convention: "otel_genai",
      model: "gpt-4o-2024-08-06",
      provider: "openai",
      inputTokens: 120,
      outputTokens: 30,
      cachedTokens: 64,
      conversationId: "conv_1",
      serviceName: "svc",
      isError: false,
      errorType: null,
      toolName: null,
    });
  });

  it("reads an agent span with id and name", () => {
    const s = normalizeSpan(
      span("invoke_agent Math Tutor", {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "Math Tutor",
        "gen_ai.agent.id": "asst_5j66",
        "gen_ai.provider.name": "openai",
      }),
    );
    expect(s).toMatchObject({ operation: "agent", convention: "otel_genai", agentName: "Math Tutor", agentId: "asst_5j66" });
  });

  it("parses the agent name from the span name when the attribute is missing", () => {
    const s = normalizeSpan(span("invoke_agent planner", { "gen_ai.operation.name": "invoke_agent" }));
    expect(s.agentName).toBe("planner");
  });

  it("reads a tool span and keeps the propagated agent name only as a hint", () => {
    const s = normalizeSpan(
      span("execute_tool get_weather", {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "call_mszuSIzqtI65i1wAUOE8w5H4",
        "gen_ai.agent.name": "Math Tutor",
      }),
    );
    expect(s).toMatchObject({
      operation: "tool",
      toolName: "get_weather",
      toolCallId: "call_mszuSIzqtI65i1wAUOE8w5H4",
      agentName: "Math Tutor",
      handoffTo: null,
    });
  });

  it("does not treat gen_ai.agent.name alone as an agent span", () => {
    const s = normalizeSpan(span("some step", { "gen_ai.agent.name": "Math Tutor" }));
    expect(s.operation).toBe("other");
    expect(s.convention).toBe("none");
    expect(s.agentName).toBe("Math Tutor");
  });

  it("classifies workflow-like operations as other", () => {
    for (const op of ["invoke_workflow", "invoke_swarm", "invoke_graph", "execute_task", "retrieval"]) {
      expect(normalizeSpan(span(op, { "gen_ai.operation.name": op })).operation).toBe("other");
    }
  });

  it("turns an execute_tool span with gen_ai.transfer.* into a handoff (genai draft)", () => {
    const s = normalizeSpan(
      span("execute_tool transfer_to_weather_agent weather_agent", {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.agent.name": "triage",
        "gen_ai.transfer.target.name": "weather_agent",
        "gen_ai.transfer.mode": "pass_control",
      }),
    );
    expect(s).toMatchObject({
      operation: "handoff",
      toolName: "transfer_to_weather_agent",
      handoffFrom: "triage",
      handoffTo: "weather_agent",
    });
  });

  it("reads contrib openai-agents handoff spans", () => {
    const s = normalizeSpan(
      span("handoff", {
        "gen_ai.operation.name": "agent_handoff",
        "gen_ai.handoff.from_agent": "Triage",
        "gen_ai.handoff.to_agent": "Billing",
      }),
    );
    expect(s).toMatchObject({ operation: "handoff", convention: "otel_genai", handoffFrom: "Triage", handoffTo: "Billing" });
  });

  it("parses the model from a `{operation} {model}` name when no model attribute is set", () => {
    const s = normalizeSpan(span("generate_content gemini-2.0-flash", { "gen_ai.operation.name": "generate_content" }));
    expect(s.model).toBe("gemini-2.0-flash");
  });
});

describe("OTel GenAI, deprecated names", () => {
  it("reads gen_ai.system and prompt/completion tokens", () => {
    const s = normalizeSpan(
      span("chat gpt-4", {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "az.ai.openai",
        "gen_ai.request.model": "gpt-4",
        "gen_ai.usage.prompt_tokens": 11,
        "gen_ai.usage.completion_tokens": 7,
      }),
    );
    expect(s).toMatchObject({ operation: "llm", provider: "azure.ai.openai", model: "gpt-4", inputTokens: 11, outputTokens: 7 });
  });

  it("maps legacy provider values and prefers gen_ai.provider.name", () => {
    const provider = (attrs: Attributes) => normalizeSpan(span("chat m", { "gen_ai.operation.name": "chat", ...attrs })).provider;
    expect(provider({ "gen_ai.system": "vertex_ai" })).toBe("gcp.vertex_ai");
    expect(provider({ "gen_ai.system": "gemini" })).toBe("gcp.gemini");
    expect(provider({ "gen_ai.system": "xai" })).toBe("x_ai");
    expect(provider({ "gen_ai.system": "Anthropic" })).toBe("anthropic");
    expect(provider({ "gen_ai.provider.name": "anthropic", "gen_ai.system": "openai" })).toBe("anthropic");
  });

  it("prefers current token names over deprecated ones and accepts int64 decimal strings", () => {
    const s = normalizeSpan(
      span("chat m", {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.input_tokens": "123456",
        "gen_ai.usage.prompt_tokens": 1,
        "gen_ai.usage.output_tokens": -5,
        "gen_ai.usage.completion_tokens": 4,
      }),
    );
    expect(s.inputTokens).toBe(123456);
    // A negative count is not a count: the next source wins.
    expect(s.outputTokens).toBe(4);
  });
});

describe("fallback classification", () => {
  it("classifies token-carrying spans as llm and tool-named spans as tools", () => {
    expect(normalizeSpan(span("call", { "gen_ai.usage.input_tokens": 3 }))).toMatchObject({ operation: "llm", convention: "fallback" });
    expect(normalizeSpan(span("x", { "gen_ai.request.model": "m" }))).toMatchObject({ operation: "llm", convention: "fallback" });
    expect(normalizeSpan(span("x", { "tool.name": "grep" }))).toMatchObject({ operation: "tool", toolName: "grep" });
    expect(normalizeSpan(span("GET /", { "http.method": "GET" }))).toMatchObject({ operation: "other", convention: "none" });
  });
});

describe("tags and service name", () => {
  it("reads crux.* tags from the span first, then the resource", () => {
    const s = normalizeSpan(
      span(
        "root",
        { "crux.task.id": "task-7", "crux.outcome.success": true, "crux.seed": { nested: 1 } },
        {
          resource: {
            "service.name": "planner-svc",
            "crux.task.id": "resource-task",
            "crux.variant": "multi",
            "crux.baseline": false,
            "crux.seed": 3,
          },
        },
      ),
    );
    expect(s.serviceName).toBe("planner-svc");
    expect(s.tags).toEqual({
      "crux.task.id": "task-7",
      "crux.outcome.success": true,
      "crux.variant": "multi",
      "crux.baseline": false,
      "crux.seed": 3,
    });
  });

  it("has no service name when the resource has none", () => {
    expect(normalizeSpan(span("x", {}, { resource: {} })).serviceName).toBeNull();
  });
});

describe("normalizeSpans", () => {
  it("keeps order and the decoded fields", () => {
    const input = [span("a", {}, { spanId: "0000000000000001" }), span("chat m", { "gen_ai.operation.name": "chat" }, { spanId: "0000000000000002" })];
    const out = normalizeSpans(input);
    expect(out.map((s) => [s.spanId, s.operation])).toEqual([
      ["0000000000000001", "other"],
      ["0000000000000002", "llm"],
    ]);
    expect(out[1]?.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(out[1]?.attributes).toBe(input[1]?.attributes);
  });
});
