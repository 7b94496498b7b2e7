/**
 * Stored score rows → the shared shapes of @crux/contracts (per-agent usage,
 * handoff, attribution, totals), one mapping each for every endpoint that
 * serves them. Pure.
 */
import type { AgentUsage, Attribution, Handoff, TraceTotals } from "@crux/contracts";
import type { TraceAgentUsageRow, TraceAttributionRow, TraceHandoffRow, TraceScoreSummary } from "@crux/db";
import { nsToIso } from "../time.ts";

/**
 * Why an agent's tokens are not reported, and what makes the tracer report them
 * (docs/instrumenting.md, Python frameworks): no model call traced at all (AutoGen's built-in tracing does not
 * trace the model client), or model calls traced without token counts.
 */
function tokensNotReportedReason(llmCalls: number): string {
  return llmCalls === 0
    ? "The tracer recorded no model calls for this agent, so no tokens: add an instrumentation of its model client (e.g. openinference-instrumentation-openai, or an OpenInference instrumentation of the framework) to see them (docs/instrumenting.md, Python frameworks)."
    : "The tracer recorded this agent's model calls without token counts: enable usage capture in the model client's instrumentation (docs/instrumenting.md, Python frameworks).";
}

export function agentUsageView(a: TraceAgentUsageRow): AgentUsage {
  const reported = a.tokensReported;
  return {
    agent: a.agent,
    agentId: a.agentId,
    parentAgent: a.parentAgent,
    spans: a.spans,
    llmCalls: a.llmCalls,
    toolCalls: a.toolCalls,
    errors: a.errors,
    // Not reported is unknown, never 0.
    inputTokens: reported ? a.inputTokens : null,
    outputTokens: reported ? a.outputTokens : null,
    cachedTokens: reported ? a.cachedTokens : null,
    totalTokens: reported ? a.inputTokens + a.outputTokens : null,
    tokensReported: reported,
    tokensNotReported: reported ? null : tokensNotReportedReason(a.llmCalls),
    costUsd: reported ? a.costUsd : null,
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
