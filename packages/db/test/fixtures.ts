/** Deterministic span builders for the db integration tests: fixed ids and times. */
import { randomUUID } from "node:crypto";
import type { NormalizedSpan } from "@crux/core";

export const BASE_NS = 1_750_000_000_000_000_000n;

export function traceId(n: number): string {
  return n.toString(16).padStart(32, "0");
}

export function spanId(n: number): string {
  return n.toString(16).padStart(16, "0");
}

/** A unique project id per test, so tests can share one database. */
export function projectId(): string {
  return `p_${randomUUID()}`;
}

/** A minimal "other" span; override what the test is about. */
export function span(overrides: Partial<NormalizedSpan> & { traceId: string; spanId: string }): NormalizedSpan {
  return {
    parentSpanId: null,
    traceState: "",
    flags: 1,
    name: "step",
    kind: 1,
    startTimeUnixNano: BASE_NS,
    endTimeUnixNano: BASE_NS + 1_000n,
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: 0, message: "" },
    resource: { "service.name": "svc" },
    scope: { name: "test-scope", version: "1.0.0", attributes: {} },
    limitsApplied: { truncatedKeys: [], droppedAttributes: 0 },
    operation: "other",
    convention: "none",
    serviceName: "svc",
    agentName: null,
    agentId: null,
    model: null,
    provider: null,
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    cost: null,
    toolName: null,
    toolCallId: null,
    handoffFrom: null,
    handoffTo: null,
    errorType: null,
    isError: false,
    conversationId: null,
    tags: {},
    ...overrides,
  };
}

/** n spans of one trace: span 1 is the root, the others its children, 1 µs apart. */
export function traceOf(trace: number, n: number, overrides: Partial<NormalizedSpan> = {}): NormalizedSpan[] {
  return Array.from({ length: n }, (_, i) =>
    span({
      traceId: traceId(trace),
      spanId: spanId(i + 1),
      parentSpanId: i === 0 ? null : spanId(1),
      startTimeUnixNano: BASE_NS + BigInt(i) * 1_000n,
      endTimeUnixNano: BASE_NS + BigInt(i) * 1_000n + 500n,
      attributes: { "gen_ai.operation.name": "chat", index: i },
      ...overrides,
    }),
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
