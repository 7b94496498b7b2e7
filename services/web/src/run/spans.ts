/**
 * The trace's spans as flat lists (GET /traces/:id nests `roots` at most 64 levels and continues
 * deeper spans as further roots entries): one pass collects every span, the tree is rebuilt from
 * parentSpanId, so a continuation hangs under its real parent. Pure.
 */
import type { SpanNode } from "../types.ts";

export type FlatSpan = Omit<SpanNode, "children">;

export interface SpanIndex {
  /** Every span, in tree order (depth first, children by start). */
  ordered: FlatSpan[];
  byId: Map<string, FlatSpan>;
  children: Map<string, string[]>;
  /** Span ids without a parent in the trace (roots and orphans), by start. */
  roots: string[];
  /** Trace start in ns (as a number of ms since the trace start is what views draw). */
  startNs: bigint;
  endNs: bigint;
}

const byStart = (a: FlatSpan, b: FlatSpan) =>
  a.startTimeUnixNano === b.startTimeUnixNano ? (a.spanId < b.spanId ? -1 : 1) : BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1;

export function indexSpans(roots: SpanNode[]): SpanIndex {
  const all: FlatSpan[] = [];
  const stack: SpanNode[] = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { children, ...span } = node;
    all.push(span);
    for (const c of children) stack.push(c);
  }
  const byId = new Map(all.map((s) => [s.spanId, s]));
  const children = new Map<string, FlatSpan[]>();
  const rootSpans: FlatSpan[] = [];
  for (const s of all) {
    if (s.parentSpanId !== null && byId.has(s.parentSpanId)) {
      const list = children.get(s.parentSpanId);
      if (list) list.push(s);
      else children.set(s.parentSpanId, [s]);
    } else rootSpans.push(s);
  }
  rootSpans.sort(byStart);
  const childIds = new Map<string, string[]>();
  for (const [id, list] of children)
    childIds.set(
      id,
      list.sort(byStart).map((s) => s.spanId),
    );
  const ordered: FlatSpan[] = [];
  const walk: string[] = rootSpans.map((s) => s.spanId).reverse();
  while (walk.length > 0) {
    const id = walk.pop()!;
    ordered.push(byId.get(id)!);
    const kids = childIds.get(id);
    if (kids) for (let i = kids.length - 1; i >= 0; i--) walk.push(kids[i]!);
  }
  let startNs = ordered.length > 0 ? BigInt(ordered[0]!.startTimeUnixNano) : 0n;
  let endNs = startNs;
  for (const s of all) {
    const a = BigInt(s.startTimeUnixNano);
    const b = BigInt(s.endTimeUnixNano);
    if (a < startNs) startNs = a;
    if (b > endNs) endNs = b;
  }
  return { ordered, byId, children: childIds, roots: rootSpans.map((s) => s.spanId), startNs, endNs };
}

/** The first agent span of each agent (what selecting the agent's node selects), by start. */
export function firstAgentSpans(index: SpanIndex): Map<string, string> {
  const first = new Map<string, FlatSpan>();
  for (const s of index.byId.values()) {
    if (s.agent === null) continue;
    const current = first.get(s.agent);
    const candidate = s.operation === "agent" ? s : null;
    if (!current || (candidate && (current.operation !== "agent" || byStart(candidate, current) < 0))) {
      if (candidate || !current) first.set(s.agent, s);
    }
  }
  return new Map([...first].map(([agent, s]) => [agent, s.spanId]));
}

export interface TreeRow {
  span: FlatSpan;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
}

/** The tree's visible rows: depth first, skipping the descendants of collapsed spans. */
export function visibleTreeRows(index: SpanIndex, collapsed: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk: { id: string; depth: number }[] = index.roots.map((id) => ({ id, depth: 0 })).reverse();
  while (walk.length > 0) {
    const { id, depth } = walk.pop()!;
    const kids = index.children.get(id) ?? [];
    const expanded = !collapsed.has(id);
    rows.push({ span: index.byId.get(id)!, depth, hasChildren: kids.length > 0, expanded });
    if (expanded) for (let i = kids.length - 1; i >= 0; i--) walk.push({ id: kids[i]!, depth: depth + 1 });
  }
  return rows;
}

/** The span's ancestors (nearest last): expanding them makes the span visible in the tree. */
export function ancestorsOf(index: SpanIndex, spanId: string): string[] {
  const out: string[] = [];
  let current = index.byId.get(spanId)?.parentSpanId ?? null;
  const seen = new Set<string>();
  while (current !== null && index.byId.has(current) && !seen.has(current)) {
    seen.add(current);
    out.unshift(current);
    current = index.byId.get(current)!.parentSpanId;
  }
  return out;
}
