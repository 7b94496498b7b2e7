/** Deterministic span builders for the db integration tests: fixed ids and times. */
import { randomUUID } from "node:crypto";
import type { StoredSpan } from "@crux/core";
import { normalizedSpan, spanIdOf, traceIdOf } from "@crux/core/testing";

export { spanIdOf as spanId, traceIdOf as traceId } from "@crux/core/testing";

export const BASE_NS = 1_750_000_000_000_000_000n;

/** A unique project id per test, so tests can share one database. */
export function projectId(): string {
  return `p_${randomUUID()}`;
}

/** A minimal "other" span as ingest writes it (content is never stored); override what the test is about. */
export function span(overrides: Partial<StoredSpan> & { traceId: string; spanId: string }): StoredSpan {
  const {
    content: _content,
    runTags: _runTags,
    ...stored
  } = normalizedSpan({
    startTimeUnixNano: BASE_NS,
    endTimeUnixNano: BASE_NS + 1_000n,
    scope: { name: "test-scope", version: "1.0.0", attributes: {} },
    convention: "none",
    ...overrides,
  });
  return stored;
}

/** n spans of one trace: span 1 is the root, the others its children, 1 µs apart. */
export function traceOf(trace: number, n: number, overrides: Partial<StoredSpan> = {}): StoredSpan[] {
  return Array.from({ length: n }, (_, i) =>
    span({
      traceId: traceIdOf(trace),
      spanId: spanIdOf(i + 1),
      parentSpanId: i === 0 ? null : spanIdOf(1),
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
