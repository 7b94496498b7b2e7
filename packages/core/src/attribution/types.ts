/**
 * Output of attributeAgents(spans): who owns each span and what each agent
 * really used, computed over one trace's whole span tree.
 */

/** Stable key of an agent within a trace: agent id when known, else "name:<agent name>". */
export type AgentKey = string;

export interface SpanAttribution {
  spanId: string;
  /** Owning agent: the span itself if it is an agent span, else the nearest ancestor agent span, else the propagated gen_ai.agent.name; null when none. */
  agentKey: AgentKey | null;
  /** Chain of agent names from the root down to the owning agent, e.g. ["lead", "search_1"]. */
  agentPath: string[];
  /** Depth of the span in the tree (root = 0; orphans count from their provisional root). */
  depth: number;
  /** Tokens and cost of this span that count toward totals (0 when they are a nested duplicate or a run total). */
  counted: { inputTokens: number; outputTokens: number; cachedTokens: number; cost: number | null };
  /** For a tool or handoff call traced twice (two conventions in one trace): the span id of the enclosing span that is the same call; null otherwise. */
  duplicateOf: string | null;
  /** The span is in error and its failure is counted here: not a span of the same agent enclosing a span in error (one failure, counted where it happened). */
  countedError: boolean;
}

/**
 * The per-agent counters, declared once: the attribution counts them (AgentUsage), the usage
 * score carries them (AgentUsageScore) and the stored row keeps them (AgentScoreRow).
 */
export interface AgentCounters {
  spans: number;
  llmCalls: number;
  toolCalls: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  /** Part of inputTokens served from cache (docs/conventions.md §3.2). */
  cachedTokens: number;
  /**
   * Whether any of the agent's spans carries a token count. False when the tracer reported
   * none (AutoGen's built-in tracing records no model calls): its token counts are then 0 for
   * want of a report, not because nothing was used, and readers serve them as not reported.
   */
  tokensReported: boolean;
}

export interface AgentUsage extends AgentCounters {
  key: AgentKey;
  name: string;
  id: string | null;
  /** Name of the agent that invoked this one (parent agent in the tree), if any. */
  parentAgent: string | null;
  /** Sum of tracer-reported cost over counted spans; null if none reported. */
  cost: number | null;
  firstStartNs: bigint;
  lastEndNs: bigint;
}

export interface HandoffEdge {
  from: string | null;
  to: string | null;
  spanId: string;
  /** How the handoff was recognized. */
  via: "handoff_span" | "transfer_tool" | "nested_agent" | "back_link";
  startNs: bigint;
}

export interface TraceAttribution {
  bySpan: Map<string, SpanAttribution>;
  agents: AgentUsage[];
  handoffs: HandoffEdge[];
  /** Span ids with no parent in the trace (true roots and orphans whose parent never arrived). */
  roots: string[];
  /** Span ids whose parentSpanId is set but not present in the trace. */
  orphans: string[];
  totals: { inputTokens: number; outputTokens: number; cachedTokens: number; cost: number | null };
}
