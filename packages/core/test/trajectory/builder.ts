/**
 * Deterministic fixtures: NormalizedSpan objects with fixed ids and times,
 * and a hand-rolled TraceAttribution (nearest ancestor agent owns a span;
 * nested agents and handoff spans become handoff edges) so trajectory and
 * scorer tests do not depend on the attribution module.
 */
import type { AttrValue, NormalizedSpan, OperationKind, SpanRunTags } from "../../src/span.ts";
import { canonicalArgs } from "../../src/trajectory/index.ts";
import type { AgentUsage, HandoffEdge, SpanAttribution, TraceAttribution } from "../../src/attribution/types.ts";
import { normalizedSpan, nsAt, TEST_BASE_NS, traceIdOf, type NormalizedSpanOverrides } from "../../src/testing/index.ts";

const T0 = TEST_BASE_NS;
/** Milliseconds after T0, as ns. */
export const ms = (n: number): bigint => nsAt(n, T0);

export interface SpanSpec {
  id: string;
  parent?: string | null;
  name?: string;
  op: OperationKind;
  start: number;
  end?: number;
  agent?: string;
  tool?: string;
  model?: string;
  tokens?: { input?: number; output?: number; cached?: number };
  cost?: number;
  error?: string;
  handoffFrom?: string;
  handoffTo?: string;
  /** Content in canonical form (packages/otlp derives it from the attributes; which key holds it is tested there). */
  input?: string;
  output?: string;
  /** Tool or handoff arguments, canonicalized as the normalizer does; a tool or handoff span's input defaults to them. */
  args?: AttrValue;
  handoffMessage?: string;
  finishReasons?: string[];
  /** The rest of the content (end reasons, verdicts, exceptions, back link). */
  content?: NormalizedSpanOverrides["content"];
  runTags?: Partial<SpanRunTags>;
}

export function span(spec: SpanSpec): NormalizedSpan {
  const isError = spec.error !== undefined;
  const toolArgs = spec.args === undefined ? null : canonicalArgs(spec.args);
  const toolLike = spec.op === "tool" || spec.op === "handoff";
  return normalizedSpan({
    traceId: traceIdOf(1),
    spanId: spec.id,
    parentSpanId: spec.parent ?? null,
    flags: 0,
    name: spec.name ?? `${spec.op} ${spec.tool ?? spec.agent ?? spec.model ?? ""}`.trim(),
    startTimeUnixNano: ms(spec.start),
    endTimeUnixNano: ms(spec.end ?? spec.start + 1),
    status: { code: isError ? 2 : 0, message: spec.error ?? "" },
    resource: {},
    scope: { name: "test", version: "0", attributes: {} },
    operation: spec.op,
    agentName: spec.agent ?? null,
    model: spec.model ?? null,
    inputTokens: spec.tokens?.input ?? null,
    outputTokens: spec.tokens?.output ?? null,
    cachedTokens: spec.tokens?.cached ?? null,
    cost: spec.cost ?? null,
    toolName: spec.tool ?? null,
    handoffFrom: spec.handoffFrom ?? null,
    handoffTo: spec.handoffTo ?? null,
    errorType: spec.error ?? null,
    isError,
    content: {
      input: spec.input ?? (toolLike ? toolArgs : null),
      output: spec.output ?? null,
      toolArgs,
      handoffMessage: spec.handoffMessage ?? null,
      finishReasons: spec.finishReasons ?? [],
      ...spec.content,
    },
    runTags: spec.runTags ?? {},
  });
}

/** Test-only attribution: nearest agent ancestor owns a span; nested agent spans and handoff spans give edges. */
export function attributionFor(spans: NormalizedSpan[], explicitHandoffs?: HandoffEdge[]): TraceAttribution {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const agentAncestors = (s: NormalizedSpan): NormalizedSpan[] => {
    const chain: NormalizedSpan[] = [];
    let cur: NormalizedSpan | undefined = s;
    const seen = new Set<string>();
    while (cur !== undefined && !seen.has(cur.spanId)) {
      seen.add(cur.spanId);
      if (cur.operation === "agent") chain.unshift(cur);
      cur = cur.parentSpanId === null ? undefined : byId.get(cur.parentSpanId);
    }
    return chain;
  };
  const depthOf = (s: NormalizedSpan): number => {
    let d = 0;
    let cur = s.parentSpanId === null ? undefined : byId.get(s.parentSpanId);
    while (cur !== undefined) {
      d++;
      cur = cur.parentSpanId === null ? undefined : byId.get(cur.parentSpanId);
    }
    return d;
  };
  const bySpan = new Map<string, SpanAttribution>();
  const agents = new Map<string, AgentUsage>();
  const handoffs: HandoffEdge[] = [];
  for (const s of spans) {
    const chain = agentAncestors(s);
    const ownerSpan = chain[chain.length - 1];
    const ownerName = ownerSpan?.agentName ?? s.agentName;
    const key = ownerName === null || ownerName === undefined ? null : `name:${ownerName}`;
    const counts = s.operation === "llm";
    const counted = {
      inputTokens: counts ? (s.inputTokens ?? 0) : 0,
      outputTokens: counts ? (s.outputTokens ?? 0) : 0,
      cachedTokens: counts ? (s.cachedTokens ?? 0) : 0,
      cost: counts ? s.cost : null,
    };
    bySpan.set(s.spanId, {
      spanId: s.spanId,
      agentKey: key,
      agentPath: chain.map((a) => a.agentName ?? "?"),
      depth: depthOf(s),
      counted,
      duplicateOf: null,
      countedError: s.isError,
    });
    if (key !== null && ownerName !== null && ownerName !== undefined) {
      const parentAgent = chain.length >= 2 ? (chain[chain.length - 2]?.agentName ?? null) : null;
      const u: AgentUsage = agents.get(key) ?? {
        key,
        name: ownerName,
        id: null,
        parentAgent,
        spans: 0,
        llmCalls: 0,
        toolCalls: 0,
        errors: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedTokens: 0,
        cost: null,
        tokensReported: false,
        firstStartNs: s.startTimeUnixNano,
        lastEndNs: s.endTimeUnixNano,
      };
      u.spans++;
      if (s.operation === "llm") u.llmCalls++;
      if (s.operation === "tool") u.toolCalls++;
      if (s.isError) u.errors++;
      u.inputTokens += counted.inputTokens;
      u.outputTokens += counted.outputTokens;
      u.cachedTokens += counted.cachedTokens;
      if (s.inputTokens !== null || s.outputTokens !== null) u.tokensReported = true;
      if (counted.cost !== null) u.cost = (u.cost ?? 0) + counted.cost;
      if (s.startTimeUnixNano < u.firstStartNs) u.firstStartNs = s.startTimeUnixNano;
      if (s.endTimeUnixNano > u.lastEndNs) u.lastEndNs = s.endTimeUnixNano;
      agents.set(key, u);
    }
    if (explicitHandoffs === undefined) {
      if (s.operation === "agent" && chain.length >= 2) {
        handoffs.push({
          from: chain[chain.length - 2]?.agentName ?? null,
          to: s.agentName,
          spanId: s.spanId,
          via: "nested_agent",
          startNs: s.startTimeUnixNano,
        });
      }
      if (s.operation === "handoff") {
        handoffs.push({ from: s.handoffFrom ?? ownerName ?? null, to: s.handoffTo, spanId: s.spanId, via: "handoff_span", startNs: s.startTimeUnixNano });
      }
    }
  }
  const roots = spans.filter((s) => s.parentSpanId === null || !byId.has(s.parentSpanId)).map((s) => s.spanId);
  const orphans = spans.filter((s) => s.parentSpanId !== null && !byId.has(s.parentSpanId)).map((s) => s.spanId);
  const all = [...agents.values()];
  const reported = all.filter((a) => a.cost !== null);
  return {
    bySpan,
    agents: all,
    handoffs: explicitHandoffs ?? handoffs,
    roots,
    orphans,
    totals: {
      inputTokens: all.reduce((n, a) => n + a.inputTokens, 0),
      outputTokens: all.reduce((n, a) => n + a.outputTokens, 0),
      cachedTokens: all.reduce((n, a) => n + a.cachedTokens, 0),
      cost: reported.length === 0 ? null : reported.reduce((n, a) => n + (a.cost ?? 0), 0),
    },
  };
}
