import { describe, expect, it } from "vitest";
import { canonicalArgs, finishReasonsOf, handoffContentOf, inputTextOf, outputTextOf, toolArgsOf } from "../../src/trajectory/index.ts";
import { span } from "./builder.ts";

describe("content readers", () => {
  it("read GenAI message arrays given as JSON strings or structured values", () => {
    const messages = [
      { role: "user", parts: [{ type: "text", content: "hello" }] },
      { role: "assistant", parts: [{ type: "tool_call", name: "f", arguments: { b: 1, a: 2 } }] },
    ];
    const asString = span({ id: "a", op: "llm", start: 0, attrs: { "gen_ai.input.messages": JSON.stringify(messages) } });
    const asValue = span({ id: "b", op: "llm", start: 0, attrs: { "gen_ai.input.messages": messages } });
    expect(inputTextOf(asString)).toBe('hello\nf({"a":2,"b":1})');
    expect(inputTextOf(asValue)).toBe(inputTextOf(asString));
  });

  it("reassemble flattened OpenInference / OpenLLMetry content in index order", () => {
    const s = span({
      id: "a",
      op: "llm",
      start: 0,
      attrs: {
        "llm.output_messages.1.message.content": "second",
        "llm.output_messages.0.message.content": "first",
        "llm.finish_reason": "STOP",
      },
    });
    expect(outputTextOf(s)).toBe("first\nsecond");
    expect(finishReasonsOf(s)).toEqual(["stop"]);
    const old = span({ id: "b", op: "llm", start: 0, attrs: { "gen_ai.completion.0.content": "done", "gen_ai.completion.0.finish_reason": "length" } });
    expect(outputTextOf(old)).toBe("done");
    expect(finishReasonsOf(old)).toEqual(["length"]);
  });

  it("read tool arguments from each convention and canonicalize them", () => {
    expect(toolArgsOf(span({ id: "a", op: "tool", start: 0, attrs: { "ai.toolCall.args": '{"z":1,"a":{"y":2,"x":1}}' } }))).toBe('{"a":{"x":1,"y":2},"z":1}');
    expect(toolArgsOf(span({ id: "b", op: "tool", start: 0, attrs: { "input.value": "plain text" } }))).toBe("plain text");
    expect(canonicalArgs("{not json")).toBe("{not json");
    expect(canonicalArgs("  ")).toBeNull();
  });

  it("do not take an OpenInference handoff's agent name for content", () => {
    const oi = span({ id: "h", op: "handoff", start: 0, handoffFrom: "triage", attrs: { "input.value": "triage", "output.value": "billing" } });
    expect(handoffContentOf(oi)).toBeNull();
    const strands = span({
      id: "s",
      op: "handoff",
      start: 0,
      attrs: { "gen_ai.tool.call.arguments": { agent_name: "b", message: "do X", context: { k: 1 } } },
    });
    expect(handoffContentOf(strands)).toBe('do X\n{"k":1}');
  });
});
