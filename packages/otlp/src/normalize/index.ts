/**
 * GenAI normalization, in two steps (docs/conventions.md §4):
 * - normalizeSpan(): the columns of NormalizedFields, from whichever
 *   convention the tracer used. It runs on every span at ingest and its
 *   result is stored, so it only looks attributes up by key and parses JSON
 *   only on the rare spans that need it (handoff tool arguments, OpenInference
 *   LangGraph metadata).
 * - addContent(): a stored span plus its canonical content and run tags,
 *   what scoring reads. Never stored; re-derived whenever spans are read.
 * Pure and per span.
 */
import type { DecodedSpan, NormalizedFields, NormalizedSpan, StoredSpan } from "@crux/core";
import { classify } from "./classify.ts";
import { readContent } from "./content.ts";
import { readError } from "./errors.ts";
import { readAgentId, readAgentSpanName, readConversationId, readModel, readPropagatedAgentName, readProvider, readServiceName, readUsage } from "./fields.ts";
import { readHandoff } from "./handoff.ts";
import { readRunTags, readTags } from "./run-tags.ts";
import { str } from "./attrs.ts";
import { GEN_AI, OPENINFERENCE, VERCEL_AI } from "../semconv.ts";

function normalizeFields(span: DecodedSpan): NormalizedFields {
  const { operation, convention, toolName } = classify(span);
  const a = span.attributes;
  const usage = readUsage(a, operation);
  const handoff = operation === "handoff" ? readHandoff(span, toolName) : null;
  const error = readError(span);
  const isToolLike = operation === "tool" || operation === "handoff";
  const hasModel = operation === "llm" || operation === "agent";
  return {
    operation,
    convention,
    serviceName: readServiceName(span),
    agentName: operation === "agent" ? readAgentSpanName(span, convention) : readPropagatedAgentName(a),
    agentId: readAgentId(a, convention),
    // Only model calls and agents have a model; OpenInference copies llm.system onto every span.
    model: hasModel ? readModel(span, operation) : null,
    provider: hasModel ? readProvider(a, convention) : null,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedTokens: usage.cachedTokens,
    cost: usage.cost,
    toolName,
    toolCallId: isToolLike ? readToolCallId(a) : null,
    handoffFrom: handoff?.from ?? null,
    handoffTo: handoff?.to ?? null,
    errorType: error.errorType,
    isError: error.isError,
    conversationId: readConversationId(a, convention),
    tags: readTags(span),
  };
}

/**
 * The span plus its normalized fields. Built as one literal rather than with
 * object spread: V8 spreads into a fresh dictionary-mode object, which
 * measured ~1000x slower at ingest volume. The type checker flags any field
 * added to DecodedSpan that is not copied here.
 */
export function normalizeSpan(span: DecodedSpan): StoredSpan {
  const f = normalizeFields(span);
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    traceState: span.traceState,
    flags: span.flags,
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events,
    droppedEventsCount: span.droppedEventsCount,
    links: span.links,
    droppedLinksCount: span.droppedLinksCount,
    status: span.status,
    resource: span.resource,
    scope: span.scope,
    limitsApplied: span.limitsApplied,
    operation: f.operation,
    convention: f.convention,
    serviceName: f.serviceName,
    agentName: f.agentName,
    agentId: f.agentId,
    model: f.model,
    provider: f.provider,
    inputTokens: f.inputTokens,
    outputTokens: f.outputTokens,
    cachedTokens: f.cachedTokens,
    cost: f.cost,
    toolName: f.toolName,
    toolCallId: f.toolCallId,
    handoffFrom: f.handoffFrom,
    handoffTo: f.handoffTo,
    errorType: f.errorType,
    isError: f.isError,
    conversationId: f.conversationId,
    tags: f.tags,
  };
}

export function normalizeSpans(spans: DecodedSpan[]): StoredSpan[] {
  // push, not new Array(n): a large preallocated array starts in slow (dictionary) mode.
  const out: StoredSpan[] = [];
  for (const span of spans) out.push(normalizeSpan(span));
  return out;
}

/**
 * A stored span as scoring reads it: its content and run tags are added to
 * the span object itself, which is returned. No copy: spans are read by the
 * thousand, and a copy of each cost more than reading its content. Pass a
 * span the caller owns (a freshly read row, a fresh normalizeSpan result).
 */
export function addContent(span: StoredSpan): NormalizedSpan {
  const read = span as StoredSpan & Pick<NormalizedSpan, "content" | "runTags">;
  read.content = readContent(span);
  read.runTags = readRunTags(span.tags);
  return read;
}

function readToolCallId(a: DecodedSpan["attributes"]): string | null {
  return str(a, GEN_AI.toolCallId) ?? str(a, OPENINFERENCE.toolId) ?? str(a, OPENINFERENCE.toolCallId) ?? str(a, VERCEL_AI.toolCallId);
}
