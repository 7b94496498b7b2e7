/**
 * The agent graph per invocation: an agent invoked three times is three nodes. An invocation
 * starts at a span credited to an agent whose nearest enclosing invocation is another agent's
 * (or none); every span under it belongs to it until another agent's span starts a nested one.
 * Usage is summed over its spans; cost is the agent's priced cost split by the invocation's share
 * of the agent's tokens (exact when the agent calls one model). Handoffs go from the sender's
 * invocation that holds (or last precedes) the handoff span to the receiver's first invocation
 * starting at or after it. The result is the per-agent graph's input with invocations in place of
 * agents, in the order they started, so layout and marks are the same code. Pure.
 */
import type { AgentUsage, Handoff } from "../types.ts";
import { deriveAgentGraph, type AgentGraph, type GraphFinding } from "./graph-layout.ts";
import type { SpanIndex } from "./spans.ts";

interface Invocation {
  id: string;
  agent: string;
  spanId: string;
  parent: Invocation | null;
  startNs: bigint;
  input: number;
  output: number;
  cached: number;
  llmCalls: number;
  toolCalls: number;
  errors: number;
  spans: number;
}

export interface InvocationGraph {
  graph: AgentGraph;
  /** The invocation (node id) each span belongs to. */
  invocationOf: Map<string, string>;
  /** The first span of each invocation: what selecting its node selects. */
  spanOf: Map<string, string>;
}

export function deriveInvocationGraph(input: {
  index: SpanIndex;
  agents: AgentUsage[];
  handoffs: Handoff[];
  findings: GraphFinding[];
  attributedAgent: string | null;
  attributedSpanId: string | null;
}): InvocationGraph {
  const { index } = input;
  const invocations: Invocation[] = [];
  const bySpan = new Map<string, Invocation>();
  const count = new Map<string, number>();
  for (const s of index.ordered) {
    const parentInv = s.parentSpanId !== null ? (bySpan.get(s.parentSpanId) ?? null) : null;
    let inv = parentInv;
    if (s.agent !== null && parentInv?.agent !== s.agent) {
      const n = (count.get(s.agent) ?? 0) + 1;
      count.set(s.agent, n);
      inv = {
        id: `${s.agent} #${n}`,
        agent: s.agent,
        spanId: s.spanId,
        parent: parentInv,
        startNs: BigInt(s.startTimeUnixNano),
        input: 0,
        output: 0,
        cached: 0,
        llmCalls: 0,
        toolCalls: 0,
        errors: 0,
        spans: 0,
      };
      invocations.push(inv);
    }
    if (!inv) continue;
    bySpan.set(s.spanId, inv);
    inv.spans++;
    inv.input += s.countedTokens.input;
    inv.output += s.countedTokens.output;
    inv.cached += s.countedTokens.cached;
    if (s.operation === "llm") inv.llmCalls++;
    if (s.operation === "tool") inv.toolCalls++;
    if (s.isError) inv.errors++;
  }
  const agentUsage = new Map(input.agents.map((a) => [a.agent, a]));
  const usage: AgentUsage[] = invocations.map((inv) => {
    const a = agentUsage.get(inv.agent);
    const total = inv.input + inv.output;
    const reported = a?.tokensReported ?? total > 0;
    const share = a && a.totalTokens ? total / a.totalTokens : a && invocationsOf(invocations, inv.agent) === 1 ? 1 : null;
    return {
      agent: inv.id,
      agentId: null,
      parentAgent: inv.parent?.id ?? null,
      inputTokens: reported ? inv.input : null,
      outputTokens: reported ? inv.output : null,
      cachedTokens: reported ? inv.cached : null,
      totalTokens: reported ? total : null,
      tokensReported: reported,
      tokensNotReported: null,
      spans: inv.spans,
      llmCalls: inv.llmCalls,
      toolCalls: inv.toolCalls,
      errors: inv.errors,
      costUsd: a?.costUsd !== null && a?.costUsd !== undefined && share !== null ? a.costUsd * share : null,
      tokenShare: 0,
      wallMs: 0,
      milestoneCredit: null,
    };
  });
  const ofAgent = (agent: string) => invocations.filter((i) => i.agent === agent);
  const handoffs: Handoff[] = [];
  for (const h of input.handoffs) {
    if (!h.sender || !h.receiver) continue;
    const span = index.byId.get(h.spanId);
    const at = span ? BigInt(span.startTimeUnixNano) : null;
    const holder = bySpan.get(h.spanId);
    const senders = ofAgent(h.sender);
    const receivers = ofAgent(h.receiver);
    const from =
      holder?.agent === h.sender ? holder : ((at === null ? undefined : senders.filter((i) => i.startNs <= at).pop()) ?? senders[senders.length - 1]);
    const to = (at === null ? undefined : receivers.find((i) => i.startNs >= at && i !== from)) ?? receivers[receivers.length - 1];
    if (from && to) handoffs.push({ ...h, sender: from.id, receiver: to.id });
  }
  const attributedInv = input.attributedSpanId ? bySpan.get(input.attributedSpanId) : undefined;
  const attributed = attributedInv?.id ?? (input.attributedAgent ? (ofAgent(input.attributedAgent)[0]?.id ?? null) : null);
  const graph = deriveAgentGraph({
    agents: usage,
    handoffs,
    findings: input.findings.map((f) => ({ ...f, agent: bySpan.get(f.spanId)?.id ?? (f.agent ? (ofAgent(f.agent)[0]?.id ?? null) : null) })),
    attributedAgent: attributed,
    // Within a column, invocations stack (and wrap) in the order they started.
    agentOrder: [...invocations].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0)).map((i) => i.id),
  });
  return {
    graph,
    invocationOf: new Map([...bySpan].map(([spanId, inv]) => [spanId, inv.id])),
    spanOf: new Map(invocations.map((i) => [i.id, i.spanId])),
  };
}

function invocationsOf(all: Invocation[], agent: string): number {
  return all.filter((i) => i.agent === agent).length;
}
