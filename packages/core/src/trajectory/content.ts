/**
 * Reading content (inputs, outputs, tool arguments, finish reasons) from a
 * span's raw attributes, across conventions (docs/conventions.md §4.3). Content is
 * opt-in for most tracers, so every reader returns null when nothing is found.
 */
import type { AttrValue, Attributes, NormalizedSpan } from "../span.ts";
import { canonicalArgs, canonicalJson, parseMaybeJson } from "./canonical-json.ts";

const TOOL_ARGS_KEYS = ["gen_ai.tool.call.arguments", "ai.toolCall.args", "tool_arguments", "input.value", "traceloop.entity.input"];
const INPUT_KEYS = ["gen_ai.input.messages", "input.value", "ai.prompt.messages", "ai.prompt", "traceloop.entity.input", "gen_ai.prompt"];
const OUTPUT_KEYS = [
  "gen_ai.output.messages",
  "output.value",
  "ai.response.text",
  "ai.response.object",
  "ai.response.toolCalls",
  "traceloop.entity.output",
  "gen_ai.completion",
  "final_result",
];
const TOOL_RESULT_KEYS = ["gen_ai.tool.call.result", "ai.toolCall.result", "tool_response", "output.value", "traceloop.entity.output"];

/** Text of a structured value: message contents and text parts when recognizable, else canonical JSON. */
export function valueToText(value: AttrValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  const parsed = parseMaybeJson(value);
  if (typeof parsed === "string") return parsed.trim() === "" ? null : parsed;
  if (typeof parsed === "number" || typeof parsed === "boolean") return String(parsed);
  if (parsed === null || parsed === undefined) return null;
  const texts = collectMessageTexts(parsed);
  if (texts.length > 0) return texts.join("\n");
  return canonicalJson(parsed);
}

/** Texts from chat-message shapes: {role, parts:[{type:"text",content}]}, {role, content}, [{type:"text",text}]. */
function collectMessageTexts(value: AttrValue): string[] {
  const out: string[] = [];
  const visit = (v: AttrValue): void => {
    if (Array.isArray(v)) {
      for (const item of v) visit(item);
      return;
    }
    if (v === null || typeof v !== "object") return;
    if (typeof v["content"] === "string" && v["content"].trim() !== "") out.push(v["content"]);
    else if (typeof v["text"] === "string" && v["text"].trim() !== "") out.push(v["text"]);
    else if (Array.isArray(v["content"])) visit(v["content"]);
    if (Array.isArray(v["parts"])) visit(v["parts"]);
    if (v["type"] === "tool_call" && typeof v["name"] === "string") {
      out.push(`${v["name"]}(${canonicalArgs(v["arguments"] ?? null) ?? ""})`);
    }
  };
  visit(value);
  return out;
}

/** Flattened indexed content such as llm.output_messages.0.message.content or gen_ai.completion.0.content. */
function flattenedTexts(attributes: Attributes, pattern: RegExp): string | null {
  const hits: Array<[number, string]> = [];
  for (const [key, value] of Object.entries(attributes)) {
    const m = pattern.exec(key);
    if (m && typeof value === "string" && value.trim() !== "") hits.push([Number(m[1]), value]);
  }
  if (hits.length === 0) return null;
  hits.sort((a, b) => a[0] - b[0]);
  return hits.map((h) => h[1]).join("\n");
}

function firstText(attributes: Attributes, keys: string[]): string | null {
  for (const key of keys) {
    const text = valueToText(attributes[key]);
    if (text !== null) return text;
  }
  return null;
}

export function inputTextOf(span: NormalizedSpan): string | null {
  const a = span.attributes;
  if (span.operation === "tool" || span.operation === "handoff") {
    const args = toolArgsOf(span);
    if (args !== null) return args;
  }
  return (
    firstText(a, INPUT_KEYS) ?? flattenedTexts(a, /^llm\.input_messages\.(\d+)\.message\.content$/) ?? flattenedTexts(a, /^gen_ai\.prompt\.(\d+)\.content$/)
  );
}

export function outputTextOf(span: NormalizedSpan): string | null {
  const a = span.attributes;
  if (span.operation === "tool" || span.operation === "handoff") {
    const result = firstText(a, TOOL_RESULT_KEYS);
    if (result !== null) return result;
  }
  return (
    firstText(a, OUTPUT_KEYS) ??
    flattenedTexts(a, /^llm\.output_messages\.(\d+)\.message\.content$/) ??
    flattenedTexts(a, /^gen_ai\.completion\.(\d+)\.content$/) ??
    choiceEventText(span)
  );
}

/** Deprecated gen_ai.choice events still carry the completion on some tracers (Strands, SK, MAF). */
function choiceEventText(span: NormalizedSpan): string | null {
  for (const event of span.events) {
    if (event.name !== "gen_ai.choice") continue;
    const text = valueToText(event.attributes["message"] ?? event.attributes["body"] ?? event.attributes["content"]);
    if (text !== null) return text;
  }
  return null;
}

/** Canonical tool arguments of a tool or handoff span. */
export function toolArgsOf(span: NormalizedSpan): string | null {
  for (const key of TOOL_ARGS_KEYS) {
    const args = canonicalArgs(span.attributes[key]);
    if (args !== null) return args;
  }
  return null;
}

/** Keys under which handoff tools pass the content meant for the receiver. */
const HANDOFF_CONTENT_KEYS = ["message", "task", "instructions", "input", "content", "query", "request", "prompt", "context", "description", "question"];

/** The content a handoff span passes on: message-like argument fields, else all arguments. */
export function handoffContentOf(span: NormalizedSpan): string | null {
  const raw = span.attributes["gen_ai.tool.call.arguments"] ?? span.attributes["ai.toolCall.args"] ?? span.attributes["tool_arguments"];
  const parsed = parseMaybeJson(raw);
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
    const parts: string[] = [];
    for (const key of HANDOFF_CONTENT_KEYS) {
      const text = valueToText(parsed[key]);
      if (text !== null) parts.push(text);
    }
    if (parts.length > 0) return parts.join("\n");
  }
  const args = canonicalArgs(raw);
  if (args !== null) return args;
  // OpenInference handoff spans put the agent names in input.value / output.value: not content.
  const input = valueToText(span.attributes["input.value"]);
  if (input !== null && input !== span.handoffFrom && input !== span.agentName) return input;
  return null;
}

const FINISH_REASON_KEYS = [
  "gen_ai.response.finish_reasons",
  "gen_ai.response.finish_reason",
  "llm.finish_reason",
  "ai.response.finishReason",
  "gen_ai.response.stop_reason",
];

/** Finish / stop reasons of an LLM call, lowercased ("stop", "length", "max_tokens", "tool_calls", ...). */
export function finishReasonsOf(span: NormalizedSpan): string[] {
  const out = new Set<string>();
  const add = (v: AttrValue | undefined): void => {
    if (typeof v === "string" && v.trim() !== "") out.add(v.trim().toLowerCase());
    else if (Array.isArray(v)) for (const item of v) add(item);
  };
  for (const key of FINISH_REASON_KEYS) add(parseMaybeJson(span.attributes[key]));
  for (const [key, value] of Object.entries(span.attributes)) {
    if (/^(gen_ai\.completion|llm\.output_messages)\.\d+\.(message\.)?finish_reason$/.test(key)) add(value);
  }
  const messages = parseMaybeJson(span.attributes["gen_ai.output.messages"]);
  if (Array.isArray(messages)) {
    for (const m of messages) if (m !== null && typeof m === "object" && !Array.isArray(m)) add(m["finish_reason"]);
  }
  return [...out];
}
