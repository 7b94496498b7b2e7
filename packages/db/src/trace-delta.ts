/**
 * What one batch adds to each trace's summary row, computed from the spans the
 * batch actually inserted (duplicates already stored contribute nothing). The
 * upsert in insert-spans.ts merges these deltas into the stored row.
 */
import type { NormalizedSpan } from "@crux/core";
import { cleanText } from "./span-codec.ts";

export interface TraceDelta {
  traceId: string;
  /** Service of the chosen root, else of the earliest span in the batch. */
  serviceName: string | null;
  rootSpanId: string | null;
  rootName: string | null;
  rootStartNs: bigint | null;
  startNs: bigint;
  endNs: bigint;
  spanCount: number;
  errorCount: number;
  llmCalls: number;
  toolCalls: number;
  rawInputTokens: number;
  rawOutputTokens: number;
  /** Distinct agent names of agent spans, sorted. */
  agents: string[];
  hasError: boolean;
}

/** Earliest (start, span id) wins, so the choice does not depend on arrival order. */
function isEarlier(a: NormalizedSpan, b: NormalizedSpan): boolean {
  if (a.startTimeUnixNano !== b.startTimeUnixNano) return a.startTimeUnixNano < b.startTimeUnixNano;
  return a.spanId < b.spanId;
}

export function traceDeltas(spans: readonly NormalizedSpan[]): TraceDelta[] {
  const byTrace = new Map<string, { delta: TraceDelta; root: NormalizedSpan | null; earliest: NormalizedSpan; agents: Set<string> }>();
  for (const span of spans) {
    let entry = byTrace.get(span.traceId);
    if (!entry) {
      entry = {
        delta: {
          traceId: span.traceId,
          serviceName: null,
          rootSpanId: null,
          rootName: null,
          rootStartNs: null,
          startNs: span.startTimeUnixNano,
          endNs: span.endTimeUnixNano,
          spanCount: 0,
          errorCount: 0,
          llmCalls: 0,
          toolCalls: 0,
          rawInputTokens: 0,
          rawOutputTokens: 0,
          agents: [],
          hasError: false,
        },
        root: null,
        earliest: span,
        agents: new Set(),
      };
      byTrace.set(span.traceId, entry);
    }
    const d = entry.delta;
    d.spanCount += 1;
    if (span.startTimeUnixNano < d.startNs) d.startNs = span.startTimeUnixNano;
    if (span.endTimeUnixNano > d.endNs) d.endNs = span.endTimeUnixNano;
    if (span.isError) {
      d.errorCount += 1;
      d.hasError = true;
    }
    if (span.operation === "llm") d.llmCalls += 1;
    if (span.operation === "tool") d.toolCalls += 1;
    d.rawInputTokens += safeTokens(span.inputTokens);
    d.rawOutputTokens += safeTokens(span.outputTokens);
    if (span.operation === "agent" && span.agentName) entry.agents.add(cleanText(span.agentName));
    if (isEarlier(span, entry.earliest)) entry.earliest = span;
    if (span.parentSpanId === null && (entry.root === null || isEarlier(span, entry.root))) entry.root = span;
  }
  return [...byTrace.values()].map(({ delta, root, earliest, agents }) => ({
    ...delta,
    serviceName: nullableClean((root ?? earliest).serviceName),
    rootSpanId: root?.spanId ?? null,
    rootName: root ? cleanText(root.name) : null,
    rootStartNs: root?.startTimeUnixNano ?? null,
    agents: [...agents].sort(),
  }));
}

/** Same rule as the spans column: a count that is not a non-negative int4 is not stored, so not summed. */
function safeTokens(n: number | null): number {
  return n !== null && Number.isSafeInteger(n) && n > 0 && n <= 2_147_483_647 ? n : 0;
}

function nullableClean(s: string | null): string | null {
  return s === null ? null : cleanText(s);
}
