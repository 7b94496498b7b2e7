/**
 * Per-agent usage and share of the trace's tokens, and error ancestor paths
 * (docs/metrics.md §2). Token counting (no double
 * counting of nested usage) is decided by the attribution; this reads it.
 */
import type { AgentCounters, AgentKey } from "../attribution/types.ts";
import type { TraceTrajectories } from "../trajectory/types.ts";
import { compareSpansByStart } from "../trajectory/build.ts";

export interface AgentUsageScore extends AgentCounters {
  key: AgentKey;
  agent: string;
  parentAgent: string | null;
  steps: number;
  /** input + output. */
  totalTokens: number;
  /** Share of the trace's total tokens; null when the trace has no tokens or the agent's were not reported. */
  tokenShare: number | null;
  /** Tracer-reported cost; null when none reported (see scoreCost for priced cost). */
  reportedCost: number | null;
  wallTimeNs: bigint;
}

export interface ErrorPath {
  spanId: string;
  spanName: string;
  stepIndex: number | null;
  agent: string | null;
  depth: number;
  /** Agent chain from the root down, e.g. ["lead", "search_1"]. */
  agents: string[];
  /** "lead > search_1" */
  path: string;
  errorType: string | null;
}

export interface UsageScore {
  agents: AgentUsageScore[];
  totals: { inputTokens: number; outputTokens: number; cachedTokens: number; totalTokens: number };
  errorPaths: ErrorPath[];
}

export function scoreUsage(t: TraceTrajectories): UsageScore {
  const a = t.attribution;
  const traceTotal = a.totals.inputTokens + a.totals.outputTokens;
  const stepsOf = new Map<AgentKey | null, number>();
  for (const s of t.steps) stepsOf.set(s.agentKey, (stepsOf.get(s.agentKey) ?? 0) + 1);
  const agents = a.agents.map((u): AgentUsageScore => {
    const totalTokens = u.inputTokens + u.outputTokens;
    return {
      key: u.key,
      agent: u.name,
      parentAgent: u.parentAgent,
      spans: u.spans,
      steps: stepsOf.get(u.key) ?? 0,
      llmCalls: u.llmCalls,
      toolCalls: u.toolCalls,
      errors: u.errors,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cachedTokens: u.cachedTokens,
      totalTokens,
      tokensReported: u.tokensReported,
      tokenShare: traceTotal === 0 || !u.tokensReported ? null : totalTokens / traceTotal,
      reportedCost: u.cost,
      wallTimeNs: u.lastEndNs > u.firstStartNs ? u.lastEndNs - u.firstStartNs : 0n,
    };
  });
  // One failure is one path: a span of the same agent enclosing the failing one is not listed again.
  const errorSpans = t.spans.filter((s) => s.isError && a.bySpan.get(s.spanId)?.countedError !== false).sort(compareSpansByStart);
  const errorPaths = errorSpans.map((s): ErrorPath => {
    const attr = a.bySpan.get(s.spanId);
    const chain = attr?.agentPath ?? [];
    const stepIndex = t.stepIndexBySpan.get(s.spanId) ?? null;
    return {
      spanId: s.spanId,
      spanName: s.name,
      stepIndex,
      agent: chain[chain.length - 1] ?? null,
      depth: attr?.depth ?? 0,
      agents: chain,
      path: chain.join(" > "),
      errorType: s.errorType,
    };
  });
  return {
    agents,
    totals: {
      inputTokens: a.totals.inputTokens,
      outputTokens: a.totals.outputTokens,
      cachedTokens: a.totals.cachedTokens,
      totalTokens: traceTotal,
    },
    errorPaths,
  };
}
