/**
 * Span tree of one trace, tolerant of bad data: spans whose parent never
 * arrived become provisional roots (listed as orphans), several roots are
 * normal, duplicate span ids keep their first occurrence, and parent cycles
 * are broken so every walk terminates.
 */
import type { NormalizedSpan } from "../span.ts";
import { compareSpansByStart } from "../trajectory/build.ts";

export interface SpanTree {
  /** Unique spans, sorted by start time then span id. Indexes below refer to this array. */
  spans: NormalizedSpan[];
  /** Parent index, -1 for a (provisional) root. */
  parent: Int32Array;
  children: number[][];
  /** Root indexes in start order: true roots, orphans, and spans where a cycle was cut. */
  roots: number[];
  orphans: string[];
  /** Pre-order: every parent before its children. */
  preorder: number[];
  depth: Int32Array;
}

export function buildSpanTree(input: readonly NormalizedSpan[]): SpanTree {
  const seen = new Set<string>();
  const spans: NormalizedSpan[] = [];
  for (const span of input) {
    if (seen.has(span.spanId)) continue;
    seen.add(span.spanId);
    spans.push(span);
  }
  spans.sort(compareSpansByStart);

  const n = spans.length;
  const indexOf = new Map<string, number>();
  for (let i = 0; i < n; i++) indexOf.set((spans[i] as NormalizedSpan).spanId, i);

  const parent = new Int32Array(n).fill(-1);
  const orphans: string[] = [];
  for (let i = 0; i < n; i++) {
    const span = spans[i] as NormalizedSpan;
    if (span.parentSpanId === null || span.parentSpanId === "") continue;
    const p = indexOf.get(span.parentSpanId);
    if (p === undefined) orphans.push(span.spanId);
    else if (p !== i) parent[i] = p;
  }
  breakCycles(parent);

  const children: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  // Spans are sorted, so children lists come out in start order.
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    if (p < 0) roots.push(i);
    else (children[p] as number[]).push(i);
  }

  const preorder: number[] = [];
  const depth = new Int32Array(n);
  const stack: number[] = [];
  for (let r = roots.length - 1; r >= 0; r--) stack.push(roots[r] as number);
  while (stack.length > 0) {
    const i = stack.pop() as number;
    preorder.push(i);
    const p = parent[i] as number;
    depth[i] = p < 0 ? 0 : (depth[p] as number) + 1;
    const kids = children[i] as number[];
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k] as number);
  }
  return { spans, parent, children, roots, orphans, preorder, depth };
}

/**
 * Walks each parent chain once (0 = unseen, 1 = on the current walk,
 * 2 = done). Reaching a span of the current walk means a cycle: the span
 * whose parent closes it becomes a root.
 */
function breakCycles(parent: Int32Array): void {
  const state = new Uint8Array(parent.length);
  const path: number[] = [];
  for (let start = 0; start < parent.length; start++) {
    path.length = 0;
    let j = start;
    while (j >= 0 && state[j] === 0) {
      state[j] = 1;
      path.push(j);
      j = parent[j] as number;
    }
    if (j >= 0 && state[j] === 1) parent[path[path.length - 1] as number] = -1;
    for (const k of path) state[k] = 2;
  }
}
