/**
 * Agent attribution over one trace's span tree (docs/conventions.md §5,
 * docs/metrics.md §2). Pure: spans in, attribution out.
 *
 * Owner of a span: itself if it is an agent span, else the nearest ancestor
 * agent span, else its own propagated agent name when that names a known
 * agent (or when the trace has no agent span at all), else none.
 *
 * Tokens are counted once. An llm span counts only when no llm descendant of
 * the same agent carries usage (framework wrappers such as ADK call_llm over
 * a provider span are duplicates: the innermost wins). An agent span's own
 * usage (run totals: AI SDK invoke_agent / ai.generateText, Strands, CrewAI
 * {role}.agent, pydantic aggregated usage) counts only when the agent's own
 * subtree has no llm span carrying usage. Walks below a span stop at nested
 * agent spans: a nested agent's calls are its own, so they never make the
 * parent's llm or agent span a wrapper.
 */
import type { NormalizedSpan } from "../span.ts";
import { collectHandoffs } from "./handoffs.ts";
import { identifyAgents, type AgentIdentity } from "./identity.ts";
import { buildSpanTree } from "./tree.ts";
import type { AgentUsage, SpanAttribution, TraceAttribution } from "./types.ts";

const NO_PATH: string[] = [];

export function attributeAgents(input: NormalizedSpan[]): TraceAttribution {
  const { spans, parent, children, roots, orphans, preorder, depth } = buildSpanTree(input);
  const n = spans.length;
  const identity = identifyAgents(spans);
  const { groups, groupOfAgentSpan } = identity;
  const delegatedGroup = findDelegations(spans, children, preorder, identity);

  // Nearest span that opens an agent's scope, the span itself included: an agent span, or a
  // delegation span for the spans below it (not for itself: the delegation is its caller's).
  const scopeAbove = new Int32Array(n).fill(-1);
  const scopeGroup = new Int32Array(n).fill(-1);
  const parentAgentSpan = new Int32Array(n).fill(-1);
  const ownerGroup = new Int32Array(n).fill(-1);
  const paths: string[][] = new Array<string[]>(n);
  const nameOfGroup = (g: number): string => (groups[g] as { name: string }).name;
  for (const i of preorder) {
    const s = spans[i] as NormalizedSpan;
    const p = parent[i] as number;
    const above = p >= 0 ? (scopeAbove[p] as number) : -1;
    if (s.operation === "agent") {
      const g = groupOfAgentSpan[i] as number;
      const name = nameOfGroup(g);
      scopeAbove[i] = i;
      scopeGroup[i] = g;
      ownerGroup[i] = g;
      // Skip ancestors that are the same agent (a run wrapped in another span of itself).
      parentAgentSpan[i] = above >= 0 && scopeGroup[above] === g ? (parentAgentSpan[above] as number) : above;
      const base = above >= 0 ? (paths[above] as string[]) : NO_PATH;
      paths[i] = base[base.length - 1] === name ? base : [...base, name];
    } else if (above >= 0) {
      ownerGroup[i] = scopeGroup[above] as number;
      paths[i] = paths[above] as string[];
    } else {
      const g = identity.resolveHint(s.agentName, s.agentId);
      ownerGroup[i] = g;
      paths[i] = g >= 0 ? [nameOfGroup(g)] : NO_PATH;
    }
    const delegated = delegatedGroup.get(i);
    if (delegated === undefined) {
      if (s.operation !== "agent") scopeAbove[i] = above;
    } else {
      scopeAbove[i] = i;
      scopeGroup[i] = delegated;
      paths[i] = [...(paths[i] as string[]), nameOfGroup(delegated)];
    }
  }
  // Paths of delegation spans were extended for their subtree; the span itself keeps its caller's.
  for (const i of delegatedGroup.keys()) paths[i] = (paths[i] as string[]).slice(0, -1);

  // Bottom-up, not crossing nested agents: is there an llm span below (with usage / at all), a failure of the same agent?
  const usageBelow = new Uint8Array(n);
  const llmBelow = new Uint8Array(n);
  const errorBelow = new Uint8Array(n);
  for (let k = preorder.length - 1; k >= 0; k--) {
    const i = preorder[k] as number;
    for (const c of children[i] as number[]) {
      const child = spans[c] as NormalizedSpan;
      if (child.operation === "agent") continue;
      if (ownerGroup[c] === ownerGroup[i] && (child.isError || errorBelow[c] === 1)) errorBelow[i] = 1;
      if (delegatedGroup.has(c)) continue;
      if (child.operation === "llm") {
        llmBelow[i] = 1;
        if (carriesUsage(child)) usageBelow[i] = 1;
      }
      if (usageBelow[c] === 1) usageBelow[i] = 1;
      if (llmBelow[c] === 1) llmBelow[i] = 1;
    }
  }
  const duplicateOf = findDuplicateCalls(spans, parent, preorder, ownerGroup);

  const agents: AgentUsage[] = groups.map((g) => ({
    key: g.key,
    name: g.name,
    id: g.id,
    parentAgent: null,
    spans: 0,
    llmCalls: 0,
    toolCalls: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    cost: null,
    tokensReported: false,
    firstStartNs: 0n,
    lastEndNs: 0n,
  }));
  const totals: TraceAttribution["totals"] = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cost: null };
  const bySpan = new Map<string, SpanAttribution>();

  for (const i of preorder) {
    const s = spans[i] as NormalizedSpan;
    const isCounted = (s.operation === "llm" || s.operation === "agent") && usageBelow[i] === 0 && carriesUsage(s);
    const counted = isCounted
      ? { inputTokens: s.inputTokens ?? 0, outputTokens: s.outputTokens ?? 0, cachedTokens: s.cachedTokens ?? 0, cost: s.cost }
      : { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cost: null };
    const g = ownerGroup[i] as number;
    const duplicate = duplicateOf[i] as number;
    // A failure is counted where it happened: not again on a span of the same agent that encloses it.
    const countedError = s.isError && errorBelow[i] === 0;
    bySpan.set(s.spanId, {
      spanId: s.spanId,
      agentKey: g >= 0 ? (groups[g] as { key: string }).key : null,
      agentPath: paths[i] as string[],
      depth: depth[i] as number,
      counted,
      duplicateOf: duplicate >= 0 ? (spans[duplicate] as NormalizedSpan).spanId : null,
      countedError,
    });
    addUsage(totals, counted);
    if (g < 0) continue;

    const agent = agents[g] as AgentUsage;
    if (agent.spans === 0 || s.startTimeUnixNano < agent.firstStartNs) agent.firstStartNs = s.startTimeUnixNano;
    if (agent.spans === 0 || s.endTimeUnixNano > agent.lastEndNs) agent.lastEndNs = s.endTimeUnixNano;
    agent.spans++;
    // An LLM call is the innermost llm span of its agent (a wrapper and its provider span are one call).
    if (s.operation === "llm" && llmBelow[i] === 0) agent.llmCalls++;
    // A tool call traced by two conventions (an OpenInference TOOL span over autogen-core's execute_tool) is one call.
    if (s.operation === "tool" && duplicate < 0) agent.toolCalls++;
    if (countedError) agent.errors++;
    if (s.inputTokens !== null || s.outputTokens !== null) agent.tokensReported = true;
    addUsage(agent, counted);
    if (s.operation === "agent" && agent.parentAgent === null) {
      const above = parentAgentSpan[i] as number;
      if (above >= 0) agent.parentAgent = nameOfGroup(groupOfAgentSpan[above] as number);
    }
  }
  for (const [i, g] of delegatedGroup) {
    const agent = agents[g] as AgentUsage;
    const caller = ownerGroup[i] as number;
    if (agent.parentAgent === null && caller >= 0 && caller !== g) agent.parentAgent = nameOfGroup(caller);
  }

  return {
    bySpan,
    agents,
    handoffs: collectHandoffs({ spans, identity, ownerGroup, parentAgentSpan, duplicateOf }),
    roots: roots.map((i) => (spans[i] as NormalizedSpan).spanId),
    orphans,
    totals,
  };
}

/**
 * Delegations whose receiver has no agent span of its own (CrewAI's `Delegate work to
 * coworker`: the coworker's model and tool calls sit under the delegation tool span): a
 * handoff span with a target, model calls below it and no agent span below it. The receiver
 * owns the spans below the delegation (docs/conventions.md §5.2). Delegation span index →
 * the receiver's group.
 */
function findDelegations(spans: readonly NormalizedSpan[], children: number[][], preorder: number[], identity: AgentIdentity): Map<number, number> {
  const llmBelow = new Uint8Array(spans.length);
  const agentBelow = new Uint8Array(spans.length);
  for (let k = preorder.length - 1; k >= 0; k--) {
    const i = preorder[k] as number;
    for (const c of children[i] as number[]) {
      const child = spans[c] as NormalizedSpan;
      if (child.operation === "agent" || agentBelow[c] === 1) agentBelow[i] = 1;
      if (child.operation === "llm" || llmBelow[c] === 1) llmBelow[i] = 1;
    }
  }
  const delegated = new Map<number, number>();
  for (const i of preorder) {
    const s = spans[i] as NormalizedSpan;
    if (s.operation !== "handoff" || s.handoffTo === null || llmBelow[i] === 0 || agentBelow[i] === 1) continue;
    delegated.set(i, identity.ensureAgent(s.handoffTo));
  }
  return delegated;
}

/**
 * A tool or handoff call traced twice, by two conventions in one trace (OpenInference's TOOL
 * span and autogen-core's `execute_tool` inside it): a tool or handoff span of the same agent
 * and name enclosing it, with only structural spans between. Span index → the enclosing
 * span's index, -1 for every other span.
 */
function findDuplicateCalls(spans: readonly NormalizedSpan[], parent: Int32Array, preorder: number[], ownerGroup: Int32Array): Int32Array {
  const duplicateOf = new Int32Array(spans.length).fill(-1);
  for (const i of preorder) {
    const s = spans[i] as NormalizedSpan;
    if ((s.operation !== "tool" && s.operation !== "handoff") || s.toolName === null) continue;
    let p = parent[i] as number;
    while (p >= 0 && (spans[p] as NormalizedSpan).operation === "other") p = parent[p] as number;
    if (p < 0) continue;
    const outer = spans[p] as NormalizedSpan;
    if (outer.operation === s.operation && outer.toolName === s.toolName && ownerGroup[p] === ownerGroup[i]) {
      const outerOf = duplicateOf[p] as number;
      duplicateOf[i] = outerOf >= 0 ? outerOf : p;
    }
  }
  return duplicateOf;
}

/** Usage worth counting: some tokens or some cost (a 0/0 report says nothing). */
function carriesUsage(s: NormalizedSpan): boolean {
  return (s.inputTokens ?? 0) + (s.outputTokens ?? 0) + (s.cachedTokens ?? 0) > 0 || (s.cost ?? 0) > 0;
}

function addUsage(
  into: { inputTokens: number; outputTokens: number; cachedTokens: number; cost: number | null },
  add: { inputTokens: number; outputTokens: number; cachedTokens: number; cost: number | null },
): void {
  into.inputTokens += add.inputTokens;
  into.outputTokens += add.outputTokens;
  into.cachedTokens += add.cachedTokens;
  if (add.cost !== null) into.cost = (into.cost ?? 0) + add.cost;
}
