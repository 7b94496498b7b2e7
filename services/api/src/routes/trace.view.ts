/** Shapes stored spans + their attribution into the API's trace tree. Pure. */
import type { NormalizedSpan, SpanAttribution, TraceAttribution } from "@crux/core";
import type { TraceSummary } from "@crux/db";
import { nsToIso, nsToMs } from "../time.ts";
import type { SpanNodeDto } from "./trace.schema.ts";

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

const NO_ATTRIBUTION: SpanAttribution = {
  spanId: "",
  agentKey: null,
  agentPath: [],
  depth: 0,
  counted: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cost: null },
};

export function spanTreeView(spans: NormalizedSpan[], attribution: TraceAttribution): SpanNodeDto[] {
  const agentNames = new Map(attribution.agents.map((a) => [a.key, a.name]));
  const nodes = new Map<string, SpanNodeDto>();
  const ordered = [...spans].sort((a, b) => (a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0));
  for (const s of ordered) nodes.set(s.spanId, spanNode(s, attribution.bySpan.get(s.spanId) ?? NO_ATTRIBUTION, agentNames));
  const roots: SpanNodeDto[] = [];
  for (const s of ordered) {
    const node = nodes.get(s.spanId)!;
    const parent = s.parentSpanId ? nodes.get(s.parentSpanId) : undefined;
    // A cycle in bad data would make a span its own ancestor; such spans stay roots.
    if (parent && parent !== node && !isAncestor(node, parent, nodes)) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

function isAncestor(candidate: SpanNodeDto, of: SpanNodeDto, nodes: Map<string, SpanNodeDto>): boolean {
  let cur: SpanNodeDto | undefined = of;
  for (let hops = 0; cur && hops < 10_000; hops++) {
    if (cur === candidate) return true;
    cur = cur.parentSpanId ? nodes.get(cur.parentSpanId) : undefined;
  }
  return false;
}

function spanNode(s: NormalizedSpan, a: SpanAttribution, agentNames: Map<string, string>): SpanNodeDto {
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
    cost: s.cost,
    toolName: s.toolName,
    toolCallId: s.toolCallId,
    handoffFrom: s.handoffFrom,
    handoffTo: s.handoffTo,
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
    children: [],
  };
}

export function agentUsageView(attribution: TraceAttribution) {
  return attribution.agents.map((a) => ({
    name: a.name,
    id: a.id,
    parentAgent: a.parentAgent,
    spans: a.spans,
    llmCalls: a.llmCalls,
    toolCalls: a.toolCalls,
    errors: a.errors,
    inputTokens: a.inputTokens,
    outputTokens: a.outputTokens,
    cachedTokens: a.cachedTokens,
    totalTokens: a.inputTokens + a.outputTokens,
    cost: a.cost,
  }));
}
