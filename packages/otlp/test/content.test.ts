/**
 * Which attribute holds which content (docs/conventions.md §4.3, §6.2, §7):
 * the readers behind addContent(), on spans of a given operation kind.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Attributes, OperationKind, SpanEvent } from "@crux/core";
import { decodedSpan, exceptionEvent, normalizedSpan } from "@crux/core/testing";
import { readContent } from "../src/normalize/content.ts";
import { decodeExportRequest } from "../src/decode/index.ts";
import { normalizeSpan, normalizeSpans, addContent } from "../src/normalize/index.ts";
import { readRunTags } from "../src/normalize/run-tags.ts";

const content = (operation: OperationKind, attributes: Attributes, more: { handoffFrom?: string; events?: SpanEvent[] } = {}) =>
  readContent(normalizedSpan({ operation, attributes, handoffFrom: more.handoffFrom ?? null, events: more.events ?? [] }));

describe("content readers", () => {
  it("read GenAI message arrays given as JSON strings or structured values", () => {
    const messages = [
      { role: "user", parts: [{ type: "text", content: "hello" }] },
      { role: "assistant", parts: [{ type: "tool_call", name: "f", arguments: { b: 1, a: 2 } }] },
    ];
    const asString = content("llm", { "gen_ai.input.messages": JSON.stringify(messages) });
    const asValue = content("llm", { "gen_ai.input.messages": messages });
    expect(asString.text().input).toBe('hello\nf({"a":2,"b":1})');
    expect(asValue.text().input).toBe(asString.text().input);
  });

  it("reassemble flattened OpenInference / OpenLLMetry content in index order", () => {
    const s = content("llm", {
      "llm.output_messages.1.message.content": "second",
      "llm.output_messages.0.message.content": "first",
      "llm.finish_reason": "STOP",
    });
    expect(s.text().output).toBe("first\nsecond");
    expect(s.finishReasons).toEqual(["stop"]);
    const old = content("llm", { "gen_ai.completion.0.content": "done", "gen_ai.completion.0.finish_reason": "length" });
    expect(old.text().output).toBe("done");
    expect(old.finishReasons).toEqual(["length"]);
    const prompt = content("llm", { "gen_ai.prompt.1.content": "b", "gen_ai.prompt.0.content": "a", "llm.input_messages.0.message.content": "oi" });
    expect(prompt.text().input).toBe("oi");
    expect(content("llm", { "gen_ai.prompt.1.content": "b", "gen_ai.prompt.0.content": "a" }).text().input).toBe("a\nb");
  });

  it("merge finish reasons from every key, the flattened choices and the output messages", () => {
    const s = content("llm", {
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "ai.response.finishReason": "Length",
      "llm.output_messages.0.message.finish_reason": "stop",
      "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [], finish_reason: "max_tokens" }]),
    });
    expect(s.finishReasons).toEqual(["tool_calls", "length", "stop", "max_tokens"]);
  });

  it("read tool arguments from each convention and canonicalize them", () => {
    expect(content("tool", { "ai.toolCall.args": '{"z":1,"a":{"y":2,"x":1}}' }).text().toolArgs).toBe('{"a":{"x":1,"y":2},"z":1}');
    expect(content("tool", { "input.value": "plain text" }).text().toolArgs).toBe("plain text");
    expect(content("tool", { tool_arguments: { q: "x" } }).text().toolArgs).toBe('{"q":"x"}');
  });

  it("read tool arguments and results from real Mastra and LangGraph recordings", () => {
    const golden = (name: string) =>
      normalizeSpans(decodeExportRequest(new Uint8Array(readFileSync(new URL(`golden/${name}/export.json`, import.meta.url))), "json").spans).map(addContent);
    const toolText = (name: string, tool: string) => {
      const content = golden(name).find((s) => s.operation === "tool" && s.toolName === tool)?.content;
      return content?.text();
    };
    // Mastra: gen_ai.tool.input / gen_ai.tool.output.
    expect(toolText("mastra-2026-11-30", "format_text")).toEqual({
      input: '{"text":"Tidal energy is predictable but site-limited."}',
      output: '{"formatted":"- Tidal energy is predictable but site-limited."}',
      toolArgs: '{"text":"Tidal energy is predictable but site-limited."}',
    });
    expect(golden("mastra-2026-11-30").filter((s) => s.operation === "tool" && s.content.text().toolArgs === null)).toEqual([]);
    // LangGraph through OpenInference: input.value; the result is the ToolMessage's content, not its serialized envelope.
    expect(toolText("langgraph-2026-11-30", "add")).toEqual({ input: '{"a":67000,"b":164000}', output: "231000", toolArgs: '{"a":67000,"b":164000}' });
  });

  it("read a LangChain serialized message as its content, without the per-call ids around it", () => {
    const toolMessage = (callId: string) => ({
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "ToolMessage"],
      kwargs: { status: "success", content: '{"carriers":["EU-road-1"]}', tool_call_id: callId, name: "search_carriers" },
    });
    const first = content("tool", { "output.value": JSON.stringify({ output: toolMessage("call_1") }) }).text().output;
    const second = content("tool", { "output.value": JSON.stringify({ output: toolMessage("call_2") }) }).text().output;
    expect(first).toBe('{"carriers":["EU-road-1"]}');
    expect(second).toBe(first);
    expect(content("tool", { "output.value": JSON.stringify(toolMessage("call_3")) }).text().output).toBe(first);
  });

  it("give a tool call its arguments as input and its result before any other output", () => {
    const s = content("tool", { "gen_ai.tool.call.arguments": { q: "x" }, "gen_ai.tool.call.result": "found", "output.value": "other" });
    expect(s.text().input).toBe('{"q":"x"}');
    expect(s.text().output).toBe("found");
    // An LLM span's output.value is its output; tool results are not read there.
    expect(content("llm", { "gen_ai.tool.call.result": "found", "output.value": "said" }).text().output).toBe("said");
  });

  it("read a deprecated gen_ai.choice event when no output attribute is set", () => {
    const choice: SpanEvent = { timeUnixNano: 1n, name: "gen_ai.choice", attributes: { message: '{"content":"from the event"}' }, droppedAttributesCount: 0 };
    expect(content("llm", {}, { events: [choice] }).text().output).toBe("from the event");
    expect(content("llm", { "output.value": "attr" }, { events: [choice] }).text().output).toBe("attr");
  });

  it("do not take an OpenInference handoff's agent name for content", () => {
    const oi = content("handoff", { "input.value": "triage", "output.value": "billing" }, { handoffFrom: "triage" });
    expect(oi.handoffMessage).toBeNull();
    const strands = content("handoff", { "gen_ai.tool.call.arguments": { agent_name: "b", message: "do X", context: { k: 1 } } });
    expect(strands.handoffMessage).toBe('do X\n{"k":1}');
    expect(content("handoff", { "ai.toolCall.args": '{"orderId":42}' }).handoffMessage).toBe('{"orderId":42}');
  });

  it("read end reasons in precedence order on every span but LLM calls", () => {
    const attrs = { stop_reason: "max_turns", "crux.end_reason": "done", "gen_ai.agent.end_reason": 7 };
    expect(content("agent", attrs).endReasons).toEqual([
      { key: "crux.end_reason", value: "done" },
      { key: "stop_reason", value: "max_turns" },
    ]);
    expect(content("llm", attrs).endReasons).toEqual([]);
  });

  it("read verdicts in precedence order on step spans and agent spans (a verifier's turn)", () => {
    const attrs = { "gen_ai.evaluation.score.label": "pass", "crux.verdict": "approved" };
    const ordered = [
      { key: "crux.verdict", value: "approved" },
      { key: "gen_ai.evaluation.score.label", value: "pass" },
    ];
    expect(content("llm", attrs).verdicts).toEqual(ordered);
    expect(content("agent", attrs).verdicts).toEqual(ordered);
    expect(content("other", attrs).verdicts).toEqual([]);
  });

  it("read exception events as type and message", () => {
    const s = content("tool", {}, { events: [exceptionEvent("TimeoutError", "max turns exceeded")] });
    expect(s.exceptions).toEqual([{ type: "TimeoutError", message: "max turns exceeded" }]);
  });

  it("read the back link of an agent span: OpenLLMetry first, then OpenInference", () => {
    expect(content("agent", { "graph.node.parent_id": "Triage" }).handoffBackLink).toBe("Triage");
    expect(content("agent", { "gen_ai.agent.handoff_parent": "Lead", "graph.node.parent_id": "Triage" }).handoffBackLink).toBe("Lead");
    expect(content("agent", { "gen_ai.agent.handoff_parent": "", "graph.node.parent_id": "Triage" }).handoffBackLink).toBe("Triage");
    expect(content("tool", { "graph.node.parent_id": "Triage" }).handoffBackLink).toBeNull();
  });

  it("leave what core never reads for an operation empty", () => {
    const s = content("other", { "gen_ai.response.finish_reasons": ["stop"], "crux.verdict": "ok", "gen_ai.tool.call.arguments": '{"a":1}' });
    expect(s.finishReasons).toEqual([]);
    expect(s.verdicts).toEqual([]);
    expect(s.handoffMessage).toBeNull();
    // Arguments and text are read on every span (the milestone view shows them for every span).
    expect(s.text().toolArgs).toBe('{"a":1}');
  });
});

describe("run tags", () => {
  it("parse booleans, numbers and strings the documented ways", () => {
    expect(readRunTags({ "crux.outcome.success": "false", "crux.outcome.score": "0.4", "crux.seed": 3, "crux.task.id": " t-7 " })).toMatchObject({
      success: false,
      score: 0.4,
      seed: "3",
      taskId: "t-7",
    });
    expect(readRunTags({ "crux.baseline": "yes", "crux.outcome.success": 1 })).toMatchObject({ isBaseline: true, success: true });
    expect(readRunTags({ "crux.baseline": "maybe", "crux.outcome.score": "high", "crux.variant": "  " })).toMatchObject({
      isBaseline: null,
      score: null,
      variant: null,
    });
  });

  it("keep the goal verbatim, and only as a non-blank string", () => {
    expect(readRunTags({ "crux.task.goal": " Write a brief " }).goal).toBe(" Write a brief ");
    expect(readRunTags({ "crux.task.goal": "  " }).goal).toBeNull();
    expect(readRunTags({ "crux.task.goal": 42 }).goal).toBeNull();
  });

  it("come from the span's tags, the span's own value winning over its resource's", () => {
    const span = addContent(
      normalizeSpan(decodedSpan({ attributes: { "crux.variant": "multi" }, resource: { "service.name": "svc", "crux.variant": "x", "crux.task.id": "t" } })),
    );
    expect(span.runTags).toMatchObject({ variant: "multi", taskId: "t", success: null });
  });
});
