/**
 * Langfuse JS SDK (@langfuse/tracing + @langfuse/otel 5.11.1): which key holds
 * what (docs/conventions.md §3.11). Attribute values are shaped as the SDK
 * writes them: usage, cost, input and output as JSON strings.
 */
import { describe, expect, it } from "vitest";
import type { Attributes, DecodedSpan } from "@crux/core";
import { decodedSpan } from "@crux/core/testing";
import { addContent, normalizeSpan } from "../src/normalize/index.ts";

const scope = { name: "langfuse-sdk", version: "5.11.1", attributes: {} };
const span = (name: string, attributes: Attributes, over: Partial<DecodedSpan> = {}): DecodedSpan => decodedSpan({ name, attributes, scope, ...over });
const generation = (usage: object, more: Attributes = {}) =>
  normalizeSpan(
    span("plan", {
      "langfuse.observation.type": "generation",
      "langfuse.observation.model.name": "gpt-4o-mini",
      "langfuse.observation.usage_details": JSON.stringify(usage),
      ...more,
    }),
  );

describe("Langfuse observation types", () => {
  it("classifies agent, generation, embedding and tool observations, and the rest as other", () => {
    const kind = (type: string) => normalizeSpan(span("x", { "langfuse.observation.type": type }));
    expect(kind("agent")).toMatchObject({ operation: "agent", convention: "langfuse" });
    expect(kind("generation")).toMatchObject({ operation: "llm", convention: "langfuse" });
    expect(kind("embedding")).toMatchObject({ operation: "llm", convention: "langfuse" });
    expect(kind("tool")).toMatchObject({ operation: "tool", convention: "langfuse" });
    for (const type of ["span", "chain", "retriever", "evaluator", "guardrail", "event"]) {
      expect(kind(type), type).toMatchObject({ operation: "other", convention: "langfuse" });
    }
    // An unknown type falls through to the evidence rule.
    expect(kind("novel")).toMatchObject({ operation: "other", convention: "none" });
  });

  it("names agents and tools by their span name, verbatim", () => {
    expect(normalizeSpan(span("agent.researcher", { "langfuse.observation.type": "agent" }))).toMatchObject({ agentName: "agent.researcher" });
    expect(normalizeSpan(span("search_carriers", { "langfuse.observation.type": "tool" }))).toMatchObject({ toolName: "search_carriers" });
    // A Langfuse transfer tool is a handoff like any other.
    expect(normalizeSpan(span("transfer_to_writer", { "langfuse.observation.type": "tool" }))).toMatchObject({
      operation: "handoff",
      toolName: "transfer_to_writer",
    });
  });

  it("reads the model of a generation", () => {
    expect(generation({ input: 1, output: 1 })).toMatchObject({ model: "gpt-4o-mini" });
  });
});

describe("Langfuse usage details", () => {
  it("adds input_cached_tokens back into input: Langfuse's input leaves the cached part out, Crux's includes it", () => {
    expect(generation({ input: 100, input_cached_tokens: 40, output: 20 })).toMatchObject({ inputTokens: 140, cachedTokens: 40, outputTokens: 20 });
  });

  it("counts every input_* and output_* detail once, and ignores total", () => {
    const s = generation({ input: 10, input_cached_tokens: 5, input_audio_tokens: 3, output: 7, output_reasoning_tokens: 30, total: 55 });
    expect(s).toMatchObject({ inputTokens: 18, cachedTokens: 5, outputTokens: 37 });
  });

  it("reads the LangChain handler's and Anthropic's cache keys", () => {
    expect(generation({ input: 10, input_cache_read: 6, input_cache_creation: 2, output: 1 })).toMatchObject({ inputTokens: 18, cachedTokens: 6 });
    expect(generation({ input: 10, cache_read_input_tokens: 6, cache_creation_input_tokens: 2, output: 1 })).toMatchObject({
      inputTokens: 18,
      cachedTokens: 6,
    });
  });

  it("reads OpenAI usage objects passed as they are: their totals already include the cached part", () => {
    const chat = generation({ prompt_tokens: 200, completion_tokens: 40, total_tokens: 240, prompt_tokens_details: { cached_tokens: 128 } });
    expect(chat).toMatchObject({ inputTokens: 200, outputTokens: 40, cachedTokens: 128 });
    const responses = generation({ input_tokens: 90, output_tokens: 9, total_tokens: 99, input_tokens_details: { cached_tokens: 30 } });
    expect(responses).toMatchObject({ inputTokens: 90, outputTokens: 9, cachedTokens: 30 });
  });

  it("lets standard token keys win over the usage JSON, never adding the two", () => {
    const s = generation({ input: 100, input_cached_tokens: 40, output: 20 }, { "gen_ai.usage.input_tokens": 140, "gen_ai.usage.output_tokens": 20 });
    expect(s).toMatchObject({ inputTokens: 140, outputTokens: 20, cachedTokens: null });
  });

  it("treats unparseable or empty usage as absent", () => {
    expect(normalizeSpan(span("g", { "langfuse.observation.type": "generation", "langfuse.observation.usage_details": "{not json" }))).toMatchObject({
      inputTokens: null,
      outputTokens: null,
      cachedTokens: null,
    });
    expect(generation({ total: 5 })).toMatchObject({ inputTokens: null, outputTokens: null, cachedTokens: null });
  });
});

describe("Langfuse cost details", () => {
  it("reads total, else the sum of the parts", () => {
    const withTotal = generation({ input: 1 }, { "langfuse.observation.cost_details": JSON.stringify({ input: 0.0007, output: 0.0006, total: 0.0013 }) });
    expect(withTotal.cost).toBe(0.0013);
    const parts = generation({ input: 1 }, { "langfuse.observation.cost_details": JSON.stringify({ input: 0.25, output: 0.5 }) });
    expect(parts.cost).toBe(0.75);
    expect(generation({ input: 1 }).cost).toBeNull();
  });
});

describe("Langfuse errors", () => {
  const tool = (attributes: Attributes, status: DecodedSpan["status"] = { code: 0, message: "" }) =>
    normalizeSpan(span("fetch_rates", { "langfuse.observation.type": "tool", ...attributes }, { status }));

  it("reads level ERROR as an error while the OTel status stays unset, typed by the status message", () => {
    const s = tool({ "langfuse.observation.level": "ERROR", "langfuse.observation.status_message": "rate service timed out" });
    expect(s).toMatchObject({ isError: true, errorType: "rate service timed out" });
    expect(tool({ "langfuse.observation.level": "ERROR" })).toMatchObject({ isError: true, errorType: "error" });
  });

  it("does not read WARNING or a status message alone as an error, nor ERROR under an explicit OK status", () => {
    expect(tool({ "langfuse.observation.level": "WARNING", "langfuse.observation.status_message": "slow" })).toMatchObject({ isError: false, errorType: null });
    expect(tool({ "langfuse.observation.status_message": "informational" })).toMatchObject({ isError: false });
    expect(tool({ "langfuse.observation.level": "ERROR" }, { code: 1, message: "" })).toMatchObject({ isError: false });
  });

  it("prefers the OTel status message when both are set", () => {
    const s = tool({ "langfuse.observation.level": "ERROR", "langfuse.observation.status_message": "level message" }, { code: 2, message: "status message" });
    expect(s).toMatchObject({ isError: true, errorType: "status message" });
  });
});

describe("Langfuse content", () => {
  it("reads input and output of generations and agents", () => {
    const g = addContent(
      generation(
        { input: 1 },
        {
          "langfuse.observation.input": JSON.stringify([{ role: "user", content: "Find carriers." }]),
          "langfuse.observation.output": JSON.stringify({ role: "assistant", content: "Two found." }),
        },
      ),
    );
    expect(g.content.text()).toMatchObject({ input: "Find carriers.", output: "Two found." });
    const a = addContent(normalizeSpan(span("researcher", { "langfuse.observation.type": "agent", "langfuse.observation.input": "Find carriers." })));
    expect(a.content.text().input).toBe("Find carriers.");
  });

  it("reads a tool's input as its arguments, in canonical form, and its output as the result", () => {
    const t = addContent(
      normalizeSpan(
        span("search_carriers", {
          "langfuse.observation.type": "tool",
          "langfuse.observation.input": '{"region":"EU","mode":"road"}',
          "langfuse.observation.output": '{"carriers":["EU-road-1"]}',
        }),
      ),
    );
    expect(t.content.text()).toEqual({
      toolArgs: '{"mode":"road","region":"EU"}',
      input: '{"mode":"road","region":"EU"}',
      output: '{"carriers":["EU-road-1"]}',
    });
  });
});
