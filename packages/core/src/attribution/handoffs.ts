/**
 * Handoff edges of one trace, from three kinds of evidence:
 * - explicit handoff spans (OpenAI Agents handoff spans in all bridges,
 *   transfer_to_* / handoff_to_* / delegation tools, LangGraph goto): from =
 *   the span's handoffFrom, else its owning agent; to = handoffTo;
 * - nesting: an agent span whose nearest ancestor agent is another agent
 *   (ADK sub-agents, pydantic-ai delegation under a tool, agents as tools);
 * - back links on the target agent span (content.handoffBackLink: OpenLLMetry
 *   `gen_ai.agent.handoff_parent`, OpenInference `graph.node.parent_id`).
 * The same from→to pair seen explicitly and implied by nesting/back link is
 * one handoff: each explicit edge absorbs one implied edge of its pair. A
 * handoff traced twice (two conventions, one inside the other) is one edge. A
 * source on the span that names no agent of the trace (a tracer default such
 * as "OpenAI Agent") defers to the owning agent; a back link that names no
 * agent (AutoGen's "start") is not a handoff.
 */
import type { NormalizedSpan } from "../span.ts";
import type { AgentIdentity } from "./identity.ts";
import type { HandoffEdge } from "./types.ts";

export interface HandoffInput {
  spans: readonly NormalizedSpan[];
  identity: AgentIdentity;
  /** Owning agent group per span, -1 if none. */
  ownerGroup: Int32Array;
  /** For agent spans: nearest ancestor agent span of a different agent, -1 if none. */
  parentAgentSpan: Int32Array;
  /** Per span: the enclosing span that is the same call traced twice, -1 if none. */
  duplicateOf: Int32Array;
}

export function collectHandoffs({ spans, identity, ownerGroup, parentAgentSpan, duplicateOf }: HandoffInput): HandoffEdge[] {
  const { groups, groupOfAgentSpan } = identity;
  const nameOf = (g: number): string | null => (g >= 0 ? (groups[g] as { name: string }).name : null);
  const canonical = (raw: string | null): string | null => (raw === null ? null : identity.canonicalName(raw));

  const explicit: HandoffEdge[] = [];
  const implied: HandoffEdge[] = [];
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as NormalizedSpan;
    if (s.operation === "handoff") {
      if ((duplicateOf[i] as number) >= 0) continue;
      const owner = nameOf(ownerGroup[i] as number);
      const named = s.handoffFrom === null || (owner !== null && identity.groupOfName(s.handoffFrom) < 0) ? null : canonical(s.handoffFrom);
      explicit.push({
        from: named ?? owner ?? s.handoffFrom,
        to: canonical(s.handoffTo),
        spanId: s.spanId,
        via: s.toolName !== null ? "transfer_tool" : "handoff_span",
        startNs: s.startTimeUnixNano,
      });
      continue;
    }
    if (s.operation !== "agent") continue;
    const self = groupOfAgentSpan[i] as number;
    const to = nameOf(self);
    const above = parentAgentSpan[i] as number;
    let nestedFrom: string | null = null;
    if (above >= 0) {
      nestedFrom = nameOf(groupOfAgentSpan[above] as number);
      implied.push({ from: nestedFrom, to, spanId: s.spanId, via: "nested_agent", startNs: s.startTimeUnixNano });
    }
    const backLink = s.content.handoffBackLink;
    if (backLink !== null && identity.groupOfName(backLink) >= 0) {
      const from = canonical(backLink);
      // A back link restating the nesting of the same span adds nothing.
      if (from !== to && from !== nestedFrom) {
        implied.push({ from, to, spanId: s.spanId, via: "back_link", startNs: s.startTimeUnixNano });
      }
    }
  }

  const unmatched = new Map<string, number>();
  for (const edge of explicit) {
    const pair = pairKey(edge);
    unmatched.set(pair, (unmatched.get(pair) ?? 0) + 1);
  }
  const edges = explicit.slice();
  for (const edge of implied) {
    const pair = pairKey(edge);
    const left = unmatched.get(pair) ?? 0;
    if (left > 0) unmatched.set(pair, left - 1);
    else edges.push(edge);
  }
  edges.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.spanId < b.spanId ? -1 : 1));
  return edges;
}

function pairKey(edge: HandoffEdge): string {
  return `${edge.from ?? ""}\u0000${edge.to ?? ""}`;
}
