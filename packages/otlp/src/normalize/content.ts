/**
 * A span's content in canonical form (docs/conventions.md §4.3): inputs,
 * outputs, tool arguments, handoff messages, finish and end reasons,
 * verdicts, exceptions and back links, read across conventions. Not stored:
 * it runs whenever spans are read, so it reads only what core uses for the
 * span's operation and looks keys up directly. The text content (input,
 * output, toolArgs) is read on the first call of text(): it can be large JSON
 * (OpenInference chain spans carry whole graph states: eager reading cost
 * 40 µs a span on the LangGraph golden trace), and most reads (the API's span
 * tree, scoring without milestones) need it for few spans. Nothing parsed for
 * the eager fields is kept: a content object holds only its span until text()
 * is called (keeping parsed JSON per span cost more in garbage collection than
 * parsing it twice).
 */
import { canonicalArgs, canonicalJson, parseMaybeJson } from "@crux/core";
import type { AttrValue, Attributes, NamedValue, SpanContent, SpanText, StoredSpan } from "@crux/core";
import {
  CHOICE_EVENT_CONTENT_KEYS,
  CRUX,
  EXCEPTION_EVENT,
  EXCEPTION_MESSAGE,
  EXCEPTION_TYPE,
  FLATTENED,
  GEN_AI,
  LANGFUSE,
  MASTRA,
  OPENINFERENCE,
  PYDANTIC_AI,
  TRACELOOP,
  UNVERSIONED,
  VERCEL_AI,
} from "../semconv.ts";

const TOOL_ARGS_KEYS = [
  GEN_AI.toolCallArguments,
  VERCEL_AI.toolCallArgs,
  PYDANTIC_AI.toolArguments,
  MASTRA.toolInput,
  OPENINFERENCE.inputValue,
  TRACELOOP.entityInput,
  LANGFUSE.input,
];
/** Where handoff tools put the arguments a handoff message is read from (not the OpenInference names of §6.1). */
const HANDOFF_ARGS_KEYS = [GEN_AI.toolCallArguments, VERCEL_AI.toolCallArgs, PYDANTIC_AI.toolArguments];
const INPUT_KEYS = [
  GEN_AI.inputMessages,
  OPENINFERENCE.inputValue,
  VERCEL_AI.promptMessages,
  VERCEL_AI.prompt,
  TRACELOOP.entityInput,
  GEN_AI.prompt,
  LANGFUSE.input,
];
const OUTPUT_KEYS = [
  GEN_AI.outputMessages,
  OPENINFERENCE.outputValue,
  VERCEL_AI.responseText,
  VERCEL_AI.responseObject,
  VERCEL_AI.responseToolCalls,
  TRACELOOP.entityOutput,
  GEN_AI.completion,
  PYDANTIC_AI.finalResult,
  LANGFUSE.output,
];
const TOOL_RESULT_KEYS = [
  GEN_AI.toolCallResult,
  VERCEL_AI.toolCallResult,
  PYDANTIC_AI.toolResponse,
  MASTRA.toolOutput,
  OPENINFERENCE.outputValue,
  TRACELOOP.entityOutput,
  LANGFUSE.output,
];
const FINISH_REASON_KEYS = [GEN_AI.finishReasons, GEN_AI.finishReason, UNVERSIONED.finishReason, VERCEL_AI.responseFinishReason, GEN_AI.stopReason];
/** How a run or agent ended (FM-1.5), in precedence order. */
const END_REASON_KEYS = [
  CRUX.endReason,
  CRUX.terminationReason,
  GEN_AI.agentEndReason,
  UNVERSIONED.endReason,
  UNVERSIONED.terminationReason,
  UNVERSIONED.stopReason,
];
/** A verifier's verdict (FM-3.3), in precedence order. */
const VERDICT_KEYS = [CRUX.verdict, CRUX.verificationVerdict, GEN_AI.evaluationScoreLabel];
/** Back links on a handoff's target agent span: OpenLLMetry, then OpenInference. */
const BACK_LINK_KEYS = [GEN_AI.agentHandoffParent, OPENINFERENCE.graphNodeParentId];
/** Argument fields under which handoff tools pass the content meant for the receiver. */
const HANDOFF_MESSAGE_FIELDS = ["message", "task", "instructions", "input", "content", "query", "request", "prompt", "context", "description", "question"];

const NONE: readonly never[] = Object.freeze([]);

/** Text of a structured value: message contents and text parts when recognizable, else canonical JSON. */
function valueToText(value: AttrValue | undefined): string | null {
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
  visitMessages(value, out);
  return out;
}

// Module-level helpers rather than closures: these run for every span read, and the build names each closure it creates.
function visitMessages(v: AttrValue, out: string[]): void {
  if (Array.isArray(v)) {
    for (const item of v) visitMessages(item, out);
    return;
  }
  if (v === null || typeof v !== "object") return;
  // LangChain's serialized messages ({lc, type: "constructor", id: [..., "ToolMessage"], kwargs: {content, tool_call_id, ...}}),
  // bare or as OpenInference's tool result {output: <message>}: the content only, never the per-call ids around it.
  const langChain = isLangChainSerialized(v) ? v : isLangChainSerialized(v["output"]) ? v["output"] : null;
  if (langChain !== null) {
    visitMessages(langChain["kwargs"] as AttrValue, out);
    return;
  }
  if (typeof v["content"] === "string" && v["content"].trim() !== "") out.push(v["content"]);
  else if (typeof v["text"] === "string" && v["text"].trim() !== "") out.push(v["text"]);
  else if (Array.isArray(v["content"])) visitMessages(v["content"], out);
  if (Array.isArray(v["parts"])) visitMessages(v["parts"], out);
  if (v["type"] === "tool_call" && typeof v["name"] === "string") {
    out.push(`${v["name"]}(${canonicalArgs(v["arguments"] ?? null) ?? ""})`);
  }
}

function isLangChainSerialized(v: AttrValue | undefined): v is Record<string, AttrValue> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && v["lc"] !== undefined && v["type"] === "constructor" && typeof v["kwargs"] === "object";
}

function firstText(a: Attributes, keys: readonly string[]): string | null {
  for (const key of keys) {
    const text = valueToText(a[key]);
    if (text !== null) return text;
  }
  return null;
}

function firstArgs(a: Attributes, keys: readonly string[]): string | null {
  for (const key of keys) {
    const args = canonicalArgs(a[key]);
    if (args !== null) return args;
  }
  return null;
}

type Hits = Array<[number, string]>;

/** Flattened indexed content (llm.output_messages.0.message.content, gen_ai.completion.0.content, ...), gathered in one pass over the keys. */
interface Flattened {
  input: Hits;
  prompt: Hits;
  output: Hits;
  completion: Hits;
}

function scanFlattened(a: Attributes): Flattened {
  const flat: Flattened = { input: [], prompt: [], output: [], completion: [] };
  for (const key of Object.keys(a)) {
    const first = key.charCodeAt(0);
    // Every flattened key starts with "llm." or "gen_ai.": skip the rest before any string test.
    if (first !== 108 /* l */ && first !== 103 /* g */) continue;
    const value = a[key] as AttrValue;
    if (key.startsWith(FLATTENED.inputMessagePrefix)) addHit(flat.input, FLATTENED.inputMessageContent, key, value);
    else if (key.startsWith(FLATTENED.promptPrefix)) addHit(flat.prompt, FLATTENED.promptContent, key, value);
    else if (key.startsWith(FLATTENED.outputMessagePrefix)) addHit(flat.output, FLATTENED.outputMessageContent, key, value);
    else if (key.startsWith(FLATTENED.completionPrefix)) addHit(flat.completion, FLATTENED.completionContent, key, value);
  }
  return flat;
}

function addHit(hits: Hits, pattern: RegExp, key: string, value: AttrValue): void {
  const m = pattern.exec(key);
  if (m !== null && typeof value === "string" && value.trim() !== "") hits.push([Number(m[1]), value]);
}

function joinHits(hits: Hits): string | null {
  if (hits.length === 0) return null;
  hits.sort((x, y) => x[0] - y[0]);
  return hits.map((h) => h[1]).join("\n");
}

/** The content of one span, as core reads it for the span's operation. */
export function readContent(span: StoredSpan): SpanContent {
  const a = span.attributes;
  const op = span.operation;
  const isStep = op === "llm" || op === "tool" || op === "handoff";
  return {
    text: textReader(span),
    handoffMessage: op === "handoff" ? readHandoffMessage(span) : null,
    finishReasons: isStep ? readFinishReasons(a) : NONE,
    endReasons: op === "llm" ? NONE : namedStrings(a, END_REASON_KEYS),
    // Agent spans too: a verifier's turn (a message step) records its verdict on its own span.
    verdicts: isStep || op === "agent" ? namedStrings(a, VERDICT_KEYS) : NONE,
    exceptions: span.events.length === 0 ? NONE : readExceptions(span),
    handoffBackLink: op === "agent" ? readBackLink(a) : null,
  };
}

/** text(): read once, on the first call. Returned from a factory, not written in the literal, so the build adds no per-span naming call. */
function textReader(span: StoredSpan): () => SpanText {
  let text: SpanText | null = null;
  return () => (text ??= readText(span));
}

function readText(span: StoredSpan): SpanText {
  const a = span.attributes;
  const isToolLike = span.operation === "tool" || span.operation === "handoff";
  let flat: Flattened | null = null;
  const toolArgs = firstArgs(a, TOOL_ARGS_KEYS);
  let input = (isToolLike ? toolArgs : null) ?? firstText(a, INPUT_KEYS);
  if (input === null) {
    flat = scanFlattened(a);
    input = joinHits(flat.input) ?? joinHits(flat.prompt);
  }
  let output = (isToolLike ? firstText(a, TOOL_RESULT_KEYS) : null) ?? firstText(a, OUTPUT_KEYS);
  if (output === null) {
    flat ??= scanFlattened(a);
    output = joinHits(flat.output) ?? joinHits(flat.completion) ?? choiceEventText(span);
  }
  return { input, output, toolArgs };
}

/** Deprecated gen_ai.choice events still carry the completion on some tracers (Strands, SK, MAF). */
function choiceEventText(span: StoredSpan): string | null {
  for (const event of span.events) {
    if (event.name !== GEN_AI.choiceEvent) continue;
    let value: AttrValue | undefined;
    for (const key of CHOICE_EVENT_CONTENT_KEYS) {
      value = event.attributes[key];
      if (value !== undefined && value !== null) break;
    }
    const text = valueToText(value);
    if (text !== null) return text;
  }
  return null;
}

/** The content a handoff span passes on: message-like argument fields, else all arguments. */
function readHandoffMessage(span: StoredSpan): string | null {
  const a = span.attributes;
  let raw: AttrValue | undefined;
  for (const key of HANDOFF_ARGS_KEYS) {
    raw = a[key];
    if (raw !== undefined && raw !== null) break;
  }
  const parsed = parseMaybeJson(raw);
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
    const parts: string[] = [];
    for (const field of HANDOFF_MESSAGE_FIELDS) {
      const text = valueToText(parsed[field]);
      if (text !== null) parts.push(text);
    }
    if (parts.length > 0) return parts.join("\n");
  }
  const args = canonicalArgs(raw);
  if (args !== null) return args;
  // OpenInference handoff spans put the agent names in input.value / output.value: not content.
  const input = valueToText(a[OPENINFERENCE.inputValue]);
  if (input !== null && input !== span.handoffFrom && input !== span.agentName) return input;
  return null;
}

/** Finish / stop reasons, lowercased: the direct keys, flattened per-choice keys, then finish_reason inside the output messages (all merged). */
function readFinishReasons(a: Attributes): readonly string[] {
  const out = new Set<string>();
  for (const key of FINISH_REASON_KEYS) addReason(out, parseMaybeJson(a[key]));
  for (const key of Object.keys(a)) {
    if ((key.startsWith(FLATTENED.completionPrefix) || key.startsWith(FLATTENED.outputMessagePrefix)) && FLATTENED.finishReason.test(key))
      addReason(out, a[key]);
  }
  const messages = parseMaybeJson(a[GEN_AI.outputMessages]);
  if (Array.isArray(messages)) {
    for (const m of messages) if (m !== null && typeof m === "object" && !Array.isArray(m)) addReason(out, m["finish_reason"]);
  }
  return out.size === 0 ? NONE : [...out];
}

function addReason(out: Set<string>, v: AttrValue | undefined): void {
  if (typeof v === "string" && v.trim() !== "") out.add(v.trim().toLowerCase());
  else if (Array.isArray(v)) for (const item of v) addReason(out, item);
}

function namedStrings(a: Attributes, keys: readonly string[]): readonly NamedValue[] {
  let out: NamedValue[] | null = null;
  for (const key of keys) {
    const value = a[key];
    if (typeof value === "string") (out ??= []).push({ key, value });
  }
  return out ?? NONE;
}

function readExceptions(span: StoredSpan): SpanContent["exceptions"] {
  const out: Array<{ type: string; message: string }> = [];
  for (const e of span.events) {
    if (e.name !== EXCEPTION_EVENT) continue;
    out.push({ type: String(e.attributes[EXCEPTION_TYPE] ?? ""), message: String(e.attributes[EXCEPTION_MESSAGE] ?? "") });
  }
  return out.length === 0 ? NONE : out;
}

function readBackLink(a: Attributes): string | null {
  for (const key of BACK_LINK_KEYS) {
    const v = a[key];
    if (typeof v === "string" && v !== "") return v;
  }
  return null;
}
