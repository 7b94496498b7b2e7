/**
 * GenAI normalization: reads the columns of NormalizedFields from whichever
 * convention the tracer used (conventions.md §6). Pure and per span; it runs
 * on every span at ingest, so it only looks attributes up by key and parses
 * JSON only on the rare spans that need it (handoff tool arguments,
 * OpenInference LangGraph metadata).
 */
import type { DecodedSpan, NormalizedFields, NormalizedSpan } from "@crux/core";
import { classify } from "./classify.ts";
import { readError } from "./errors.ts";
import {
  readAgentId,
  readAgentSpanName,
  readConversationId,
  readModel,
  readPropagatedAgentName,
  readProvider,
  readServiceName,
  readTags,
  readUsage,
} from "./fields.ts";
import { readHandoff } from "./handoff.ts";
import { str } from "./attrs.ts";
import { GEN_AI, OPENINFERENCE, VERCEL_AI } from "../semconv.ts";

export { isHandoffToolName } from "./classify.ts";

export function normalizeFields(span: DecodedSpan): NormalizedFields {
  const { operation, convention, toolName } = classify(span);
  const a = span.attributes;
  const usage = readUsage(a, operation);
  const handoff = operation === "handoff" ? readHandoff(span, toolName) : null;
  const error = readError(span);
  const isToolLike = operation === "tool" || operation === "handoff";
  return {
    operation,
    convention,
    serviceName: readServiceName(span),
    agentName: operation === "agent" ? readAgentSpanName(span, convention) : readPropagatedAgentName(a),
    agentId: readAgentId(a, convention),
    model: readModel(span, operation),
    provider: readProvider(a, convention),
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

export function normalizeSpan(span: DecodedSpan): NormalizedSpan {
  return { ...span, ...normalizeFields(span) };
}

export function normalizeSpans(spans: DecodedSpan[]): NormalizedSpan[] {
  const out = new Array<NormalizedSpan>(spans.length);
  for (let i = 0; i < spans.length; i++) out[i] = normalizeSpan(spans[i] as DecodedSpan);
  return out;
}

function readToolCallId(a: DecodedSpan["attributes"]): string | null {
  return (
    str(a, GEN_AI.toolCallId) ??
    str(a, OPENINFERENCE.toolId) ??
    str(a, OPENINFERENCE.toolCallId) ??
    str(a, VERCEL_AI.toolCallId)
  );
}
