/**
 * Shorthand for small span trees where only nesting and listing order
 * matter: each spec names its span and parent, and orderedTrace() gives the
 * spans times that follow the order they are listed in.
 */
import type { NormalizedSpan } from "../span.ts";
import { NS_PER_MS, normalizedSpan, TEST_BASE_NS, type NormalizedSpanOverrides } from "./builders.ts";

export type OrderedSpanSpec = NormalizedSpanOverrides & { spanId: string; parentSpanId: string | null };

const STEP_NS = 10n * NS_PER_MS;

/**
 * Spans start 10ms apart in listed order and end after all later-listed ones
 * started, so every later span fits inside every earlier one in time. A span
 * without a name is named by its id.
 */
export function orderedTrace(...specs: OrderedSpanSpec[]): NormalizedSpan[] {
  return specs.map((spec, i) =>
    normalizedSpan({
      name: spec.name ?? spec.spanId,
      startTimeUnixNano: TEST_BASE_NS + BigInt(i) * STEP_NS,
      endTimeUnixNano: TEST_BASE_NS + BigInt(specs.length * 2 - i) * STEP_NS,
      ...spec,
    }),
  );
}

type Parent = string | null;
type More = NormalizedSpanOverrides;

/** An agent span named the way OTel GenAI names it. */
export const agentSpec = (spanId: string, parentSpanId: Parent, agentName: string, more: More = {}): OrderedSpanSpec => ({
  spanId,
  parentSpanId,
  operation: "agent",
  agentName,
  name: `invoke_agent ${agentName}`,
  ...more,
});

/** An LLM call with its token counts (null: not reported). */
export const llmSpec = (spanId: string, parentSpanId: Parent, inputTokens: number | null, outputTokens: number | null, more: More = {}): OrderedSpanSpec => ({
  spanId,
  parentSpanId,
  operation: "llm",
  inputTokens,
  outputTokens,
  name: "chat m",
  ...more,
});

/** A tool execution span named the way OTel GenAI names it. */
export const toolSpec = (spanId: string, parentSpanId: Parent, toolName: string, more: More = {}): OrderedSpanSpec => ({
  spanId,
  parentSpanId,
  operation: "tool",
  toolName,
  name: `execute_tool ${toolName}`,
  ...more,
});

/** A handoff span; the test sets handoffFrom / handoffTo or links in `more`. */
export const handoffSpec = (spanId: string, parentSpanId: Parent, more: More): OrderedSpanSpec => ({ spanId, parentSpanId, operation: "handoff", ...more });
