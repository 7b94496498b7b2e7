/**
 * Shapes stored spans (with their owning agent) into the API's trace tree, and
 * the stored score set into the detail's `scoring`. Pure.
 */
import type { SpanNode, TraceScoring } from "@crux/contracts";
import { compareSpansByStart, type NormalizedSpan, type SpanAttribution, type TraceAttribution } from "@crux/core";
import type { TraceScoring as StoredTraceScoring, TraceListRow, TraceSummary } from "@crux/db";
import { nsToIso, nsToMs } from "../time.ts";
import { agentUsageView, attributionView, handoffView, totalsView } from "./score-set.view.ts";

export function traceSummaryView(t: TraceSummary) {
  return {
    traceId: t.traceId,
    serviceName: t.serviceName,
    rootSpanId: t.rootSpanId,
    rootName: t.rootName,
    startTime: nsToIso(t.startNs),
    endTime: nsToIso(t.endNs),
    durationMs: nsToMs(t.endNs - t.startNs),
    spanCount: t.spanCount,
    errorCount: t.errorCount,
    agents: t.agents,
    hasError: t.hasError,
    settled: !t.dirty,
    lastReceivedAt: t.lastReceivedAt.toISOString(),
  };
}

export function traceListItemView(t: TraceListRow) {
  return {
    ...traceSummaryView(t),
    scored: t.scored,
    outcome: t.success === true ? ("success" as const) : t.success === false ? ("failed" as const) : ("unknown" as const),
    taskId: t.taskId,
    isBaseline: t.isBaseline,
    totalTokens: t.totalTokens,
    costUsd: t.costUsd,
    findingModes: t.findingModes,
    findingCount: t.findingCount,
    attributedAgent: t.attributedAgent,
    attributedSpanId: t.attributedSpanId,
  };
}

const NO_ATTRIBUTION: SpanAttribution = {
  spanId: "",
  agentKey: null,
  agentPath: [],
  depth: 0,
  counted: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cost: null },
  duplicateOf: null,
  countedError: false,
};

/**
 * How many span levels `roots[].children[]` nests. A span at the last level
 * keeps `children: []` and `childrenInRoots: true`; its children are listed in
 * `roots` (with their parentSpanId) and nest from there. Every span appears
 * exactly once; the response stays linear in size and shallow enough for any
 * JSON parser (a 10,000-deep chain overflowed the serializer's stack).
 */
const maxNestingLevels = 64;

/**
 * The span tree, built iteratively in O(spans): no recursion (depth is up to
 * the client) and no ancestor walks per span (quadratic on a deep chain).
 * Spans whose parent never arrived are roots (orphans); a parent cycle in bad
 * data is cut at one of its spans, which becomes a root.
 */
export function spanTreeView(spans: NormalizedSpan[], attribution: TraceAttribution): SpanNode[] {
  const agentNames = new Map(attribution.agents.map((a) => [a.key, a.name]));
  const ordered = [...spans].sort(compareSpansByStart);
  const nodes = new Map<string, SpanNode>();
  for (const s of ordered) nodes.set(s.spanId, spanNode(s, attribution.bySpan.get(s.spanId) ?? NO_ATTRIBUTION, agentNames));
  const children = new Map<string, SpanNode[]>();
  const starts: SpanNode[] = [];
  for (const s of ordered) {
    const parent = s.parentSpanId && s.parentSpanId !== s.spanId ? nodes.get(s.parentSpanId) : undefined;
    if (!parent) {
      starts.push(nodes.get(s.spanId)!);
      continue;
    }
    const list = children.get(parent.spanId);
    if (list) list.push(nodes.get(s.spanId)!);
    else children.set(parent.spanId, [nodes.get(s.spanId)!]);
  }

  const roots: SpanNode[] = [];
  const placed = new Set<string>();
  const continuations: SpanNode[] = [];
  // Depth-first from a root; `level` is the nesting level inside `roots`, not the span's depth.
  const place = (root: SpanNode) => {
    roots.push(root);
    placed.add(root.spanId);
    const stack: { node: SpanNode; level: number }[] = [{ node: root, level: 0 }];
    while (stack.length > 0) {
      const { node, level } = stack.pop()!;
      for (const child of children.get(node.spanId) ?? []) {
        if (placed.has(child.spanId)) continue; // the span where a parent cycle was cut
        placed.add(child.spanId);
        if (level + 1 < maxNestingLevels) {
          node.children.push(child);
        } else {
          node.childrenInRoots = true;
          continuations.push(child);
        }
      }
      for (let k = node.children.length - 1; k >= 0; k--) stack.push({ node: node.children[k]!, level: level + 1 });
    }
  };
  // Subtrees below the nesting bound, in order; their own deep parts append further continuations.
  let next = 0;
  const placeContinuations = () => {
    for (; next < continuations.length; next++) place(continuations[next]!);
  };
  for (const root of starts) place(root);
  placeContinuations();
  // What no root reaches hangs on a parent cycle: walk up to the cycle and cut it there.
  for (const s of ordered) {
    if (placed.has(s.spanId)) continue;
    const walked = new Set<string>();
    let cur = nodes.get(s.spanId)!;
    while (!walked.has(cur.spanId)) {
      walked.add(cur.spanId);
      cur = nodes.get(cur.parentSpanId!)!;
    }
    place(cur);
    placeContinuations();
  }
  return roots;
}

function spanNode(s: NormalizedSpan, a: SpanAttribution, agentNames: Map<string, string>): SpanNode {
  return {
    spanId: s.spanId,
    parentSpanId: s.parentSpanId,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: s.startTimeUnixNano.toString(),
    endTimeUnixNano: s.endTimeUnixNano.toString(),
    durationMs: nsToMs(s.endTimeUnixNano - s.startTimeUnixNano),
    status: { code: s.status.code, message: s.status.message },
    operation: s.operation,
    convention: s.convention,
    agent: a.agentKey ? (agentNames.get(a.agentKey) ?? null) : null,
    agentPath: a.agentPath,
    depth: a.depth,
    model: s.model,
    provider: s.provider,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    cachedTokens: s.cachedTokens,
    countedTokens: { input: a.counted.inputTokens, output: a.counted.outputTokens, cached: a.counted.cachedTokens },
    reportedCostUsd: s.cost,
    toolName: s.toolName,
    toolCallId: s.toolCallId,
    handoffSender: s.handoffFrom,
    handoffReceiver: s.handoffTo,
    isError: s.isError,
    errorType: s.errorType,
    conversationId: s.conversationId,
    serviceName: s.serviceName,
    tags: s.tags,
    attributes: s.attributes,
    events: s.events.map((e) => ({ timeUnixNano: e.timeUnixNano.toString(), name: e.name, attributes: e.attributes })),
    links: s.links.map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: l.attributes })),
    scope: { name: s.scope.name, version: s.scope.version },
    limitsApplied: s.limitsApplied,
    childrenInRoots: false,
    children: [],
  };
}

/** The detail's `scoring`: what the worker stored, or `pending` before the first score. */
export function scoringView(stored: StoredTraceScoring | null): TraceScoring {
  if (!stored) return { status: "pending" };
  return {
    status: "scored",
    version: stored.summary.version,
    scoredAt: stored.summary.scoredAt.toISOString(),
    totals: totalsView(stored.summary),
    agents: stored.agents.map(agentUsageView),
    handoffs: stored.handoffs.map(handoffView),
    attributions: stored.attributions.map(attributionView),
  };
}
