/**
 * Stored score rows → the shared shapes of @crux/contracts (per-agent usage,
 * handoff, attribution, totals), one mapping each for every endpoint that
 * serves them. Pure.
 */
import type { AgentUsage, Attribution, Handoff, TraceTotals } from "@crux/contracts";
import type { TraceAgentUsageRow, TraceAttributionRow, TraceHandoffRow, TraceScoreSummary } from "@crux/db";
import { nsToIso } from "../time.ts";

export function agentUsageView(a: TraceAgentUsageRow): AgentUsage {
  return {
    agent: a.agent,
    agentId: a.agentId,
    parentAgent: a.parentAgent,
    spans: a.spans,
    llmCalls: a.llmCalls,
    toolCalls: a.toolCalls,
    errors: a.errors,
    inputTokens: a.inputTokens,
    outputTokens: a.outputTokens,
    cachedTokens: a.cachedTokens,
    totalTokens: a.inputTokens + a.outputTokens,
    costUsd: a.costUsd,
    tokenShare: a.tokenShare,
    wallMs: a.wallMs,
    milestoneCredit: a.milestoneCredit,
  };
}

export function handoffView(h: TraceHandoffRow): Handoff {
  return { index: h.idx, sender: h.sender, receiver: h.receiver, spanId: h.spanId, via: h.via, message: h.message, time: nsToIso(h.startNs) };
}

export function attributionView(a: TraceAttributionRow): Attribution {
  return { method: a.method, rank: a.rank, agent: a.agent, stepIndex: a.stepIndex, spanId: a.spanId, reason: a.reason, confidence: a.confidence };
}

export function totalsView(
  s: Pick<TraceScoreSummary, "inputTokens" | "outputTokens" | "cachedTokens" | "totalTokens" | "costUsd" | "unpricedModels">,
): TraceTotals {
  return {
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    cachedTokens: s.cachedTokens,
    totalTokens: s.totalTokens,
    costUsd: s.costUsd,
    unpricedModels: s.unpricedModels,
  };
}
