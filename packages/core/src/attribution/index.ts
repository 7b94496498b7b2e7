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
import { identifyAgents } from "./identity.ts";
import { buildSpanTree } from "./tree.ts";
import type { AgentUsage, SpanAttribution, TraceAttribution } from "./types.ts";

const NO_PATH: string[] = [];

export function attributeAgents(input: NormalizedSpan[]): TraceAttribution {
  const { spans, parent, children, roots, orphans, preorder, depth } = buildSpanTree(input);
  const n = spans.length;
  const identity = identifyAgents(spans);
  const { groups, groupOfAgentSpan } = identity;

  const agentSpanAbove = new Int32Array(n).fill(-1); // nearest agent span, the span itself included
  const parentAgentSpan = new Int32Array(n).fill(-1);
  const ownerGroup = new Int32Array(n).fill(-1);
  const paths: string[][] = new Array<string[]>(n);
  for (const i of preorder) {
    const s = spans[i] as NormalizedSpan;
    const p = parent[i] as number;
    const above = p >= 0 ? (agentSpanAbove[p] as number) : -1;
    if (s.operation === "agent") {
      const g = groupOfAgentSpan[i] as number;
      const name = (groups[g] as { name: string }).name;
      agentSpanAbove[i] = i;
      ownerGroup[i] = g;
      // Skip ancestors that are the same agent (a run wrapped in another span of itself).
      parentAgentSpan[i] = above >= 0 && groupOfAgentSpan[above] === g ? (parentAgentSpan[above] as number) : above;
      const base = above >= 0 ? (paths[above] as string[]) : NO_PATH;
      paths[i] = base[base.length - 1] === name ? base : [...base, name];
    } else if (above >= 0) {
      agentSpanAbove[i] = above;
      ownerGroup[i] = groupOfAgentSpan[above] as number;
      paths[i] = paths[above] as string[];
    } else {
      const g = identity.resolveHint(s.agentName, s.agentId);
      ownerGroup[i] = g;
      paths[i] = g >= 0 ? [(groups[g] as { name: string }).name] : NO_PATH;
    }
  }

  // Bottom-up, not crossing nested agent spans: is there an llm span below (with usage / at all)?
  const usageBelow = new Uint8Array(n);
  const llmBelow = new Uint8Array(n);
  for (let k = preorder.length - 1; k >= 0; k--) {
    const i = preorder[k] as number;
    for (const c of children[i] as number[]) {
      const child = spans[c] as NormalizedSpan;
      if (child.operation === "agent") continue;
      if (child.operation === "llm") {
        llmBelow[i] = 1;
        if (carriesUsage(child)) usageBelow[i] = 1;
      }
      if (usageBelow[c] === 1) usageBelow[i] = 1;
      if (llmBelow[c] === 1) llmBelow[i] = 1;
    }
  }

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
    bySpan.set(s.spanId, {
      spanId: s.spanId,
      agentKey: g >= 0 ? (groups[g] as { key: string }).key : null,
      agentPath: paths[i] as string[],
      depth: depth[i] as number,
      counted,
    });
    addUsage(totals, counted);
    if (g < 0) continue;

    const agent = agents[g] as AgentUsage;
    if (agent.spans === 0 || s.startTimeUnixNano < agent.firstStartNs) agent.firstStartNs = s.startTimeUnixNano;
    if (agent.spans === 0 || s.endTimeUnixNano > agent.lastEndNs) agent.lastEndNs = s.endTimeUnixNano;
    agent.spans++;
    // An LLM call is the innermost llm span of its agent (a wrapper and its provider span are one call).
    if (s.operation === "llm" && llmBelow[i] === 0) agent.llmCalls++;
    if (s.operation === "tool") agent.toolCalls++;
    if (s.isError) agent.errors++;
    addUsage(agent, counted);
    if (s.operation === "agent" && agent.parentAgent === null) {
      const above = parentAgentSpan[i] as number;
      if (above >= 0) agent.parentAgent = (groups[groupOfAgentSpan[above] as number] as { name: string }).name;
    }
  }

  return {
    bySpan,
    agents,
    handoffs: collectHandoffs({ spans, identity, ownerGroup, parentAgentSpan }),
    roots: roots.map((i) => (spans[i] as NormalizedSpan).spanId),
    orphans,
    totals,
  };
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
