import type { TraceScoreRecord } from "@crux/core";
import { traceId } from "./fixtures.ts";

/** A small score set of trace n (one agent, optional FM-1.3 findings). */
export function record(
  n: number,
  o: { version?: number; taskId?: string; isBaseline?: boolean; tokens?: number; cost?: number | null; findings?: number } = {},
): TraceScoreRecord {
  const tokens = o.tokens ?? 100;
  return {
    traceId: traceId(n),
    version: o.version ?? 1,
    serviceName: "svc",
    startNs: 1_000n,
    endNs: 2_000n,
    run: {
      success: true,
      score: null,
      taskId: o.taskId ?? null,
      variant: null,
      isBaseline: o.isBaseline ?? false,
      experimentId: null,
      seed: null,
      trial: null,
      activeAgents: null,
      replayId: null,
    },
    totals: {
      inputTokens: tokens,
      outputTokens: 0,
      cachedTokens: 0,
      totalTokens: tokens,
      costUsd: o.cost === undefined ? 0.1 : o.cost,
      unpricedModels: o.cost === null ? ["m"] : [],
    },
    multiplier: {
      tokens: { value: null, observed: tokens, baseline: null, source: "unknown" },
      cost: { value: null, observed: null, baseline: null, source: "unknown" },
    },
    coordination: { redundancy: null, ignoredHandoffs: null, roleViolations: null, score: null },
    communicationEfficiency: null,
    goalDrift: null,
    milestones: null,
    agents: [
      {
        agent: "a",
        agentId: null,
        parentAgent: null,
        spans: 1,
        llmCalls: 1,
        toolCalls: 0,
        errors: 0,
        inputTokens: tokens,
        outputTokens: 0,
        cachedTokens: 0,
        tokensReported: true,
        costUsd: 0.1,
        tokenShare: 1,
        wallMs: 1,
        milestoneCredit: null,
      },
    ],
    findings: Array.from({ length: o.findings ?? 0 }, (_, i) => ({
      mode: "FM-1.3" as const,
      category: "FC1" as const,
      agent: "a",
      spanId: "0".repeat(15) + i,
      stepIndex: i,
      source: "heuristic" as const,
      detector: "repetition",
      confidence: 1,
      evidence: `v${o.version ?? 1}`,
    })),
    signals: [],
    errorPaths: [],
    attributions: [],
    handoffs: [],
    trajectories: [],
    flags: { orphans: 0, multipleRoots: false, clockSkew: 0 },
  };
}
