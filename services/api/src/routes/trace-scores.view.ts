/** Shape of GET /traces/:traceId/scores: the stored summary row, grouped for reading. */
import type { TraceAgentUsageRow, TraceScoreSummary } from "@crux/db";
import { z } from "zod";
import { nsToIso, nsToMs } from "../time.ts";

const Multiplier = z.object({
  value: z.number().nullable(),
  observed: z.number().nullable(),
  baseline: z.number().nullable(),
  source: z.string(),
});

const ScoresDto = z.object({
  version: z.number(),
  serviceName: z.string().nullable(),
  startTime: z.string(),
  durationMs: z.number(),
  scoredAt: z.string(),
  run: z.object({
    success: z.boolean().nullable(),
    score: z.number().nullable(),
    taskId: z.string().nullable(),
    variant: z.string().nullable(),
    isBaseline: z.boolean(),
    experimentId: z.string().nullable(),
    seed: z.string().nullable(),
  }),
  totals: z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cachedTokens: z.number(),
    totalTokens: z.number(),
    costUsd: z.number().nullable(),
    unpricedModels: z.array(z.string()),
  }),
  multiplier: z.object({ tokens: Multiplier, cost: Multiplier }),
  coordination: z.object({
    redundancy: z.number().nullable(),
    ignoredHandoffs: z.number().nullable(),
    roleViolations: z.number().nullable(),
    score: z.number().nullable(),
  }),
  communicationEfficiency: z.number().nullable(),
  goalDrift: z.number().nullable(),
  milestones: z
    .object({
      setId: z.string(),
      partialCredit: z.number().nullable(),
      fullSuccess: z.boolean().nullable(),
      furthestIndex: z.number().nullable(),
      detail: z.array(
        z.object({
          id: z.string(),
          passed: z.boolean(),
          spanId: z.string().nullable(),
          agent: z.string().nullable(),
          evaluated: z.boolean().optional().describe("false when a budget cut the check: neither passed nor failed"),
          notEvaluatedReason: z.string().nullable().optional().describe("trace_budget or project_budget"),
        }),
      ),
    })
    .nullable(),
  findingCount: z.number(),
  signals: z.array(z.record(z.string(), z.unknown())),
  errorPaths: z
    .array(
      z.object({
        spanId: z.string(),
        stepIndex: z.number().nullable(),
        agent: z.string().nullable(),
        depth: z.number(),
        path: z.string(),
        errorType: z.string().nullable(),
      }),
    )
    .describe('Spans in error with the agents above them, e.g. "lead > search_1"'),
  flags: z.object({ orphans: z.number(), multipleRoots: z.boolean(), clockSkew: z.number() }),
  agents: z.array(
    z.object({
      agent: z.string(),
      agentId: z.string().nullable(),
      parentAgent: z.string().nullable(),
      spans: z.number(),
      llmCalls: z.number(),
      toolCalls: z.number(),
      errors: z.number(),
      inputTokens: z.number(),
      outputTokens: z.number(),
      cachedTokens: z.number(),
      costUsd: z.number().nullable(),
      tokenShare: z.number(),
      wallMs: z.number(),
      milestoneCredit: z.number().nullable(),
    }),
  ),
});

export const TraceScoresDto = z.object({ traceId: z.string(), scored: z.boolean(), scores: ScoresDto.nullable() });

export function traceScoresView(s: TraceScoreSummary, agents: TraceAgentUsageRow[]): z.infer<typeof ScoresDto> {
  return {
    version: s.version,
    serviceName: s.serviceName,
    startTime: nsToIso(s.startNs),
    durationMs: nsToMs(s.endNs - s.startNs),
    scoredAt: s.scoredAt.toISOString(),
    run: { success: s.success, score: s.score, taskId: s.taskId, variant: s.variant, isBaseline: s.isBaseline, experimentId: s.experimentId, seed: s.seed },
    totals: {
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      cachedTokens: s.cachedTokens,
      totalTokens: s.totalTokens,
      costUsd: s.costUsd,
      unpricedModels: s.unpricedModels,
    },
    multiplier: {
      tokens: { value: s.tokenMultiplier, observed: s.tokenObserved, baseline: s.tokenBaseline, source: s.tokenBaselineSource },
      cost: { value: s.costMultiplier, observed: s.costObserved, baseline: s.costBaseline, source: s.costBaselineSource },
    },
    coordination: { redundancy: s.redundancy, ignoredHandoffs: s.ignoredHandoffs, roleViolations: s.roleViolations, score: s.coordinationScore },
    communicationEfficiency: s.communicationEfficiency,
    goalDrift: s.goalDrift,
    milestones:
      s.milestoneSetId === null
        ? null
        : {
            setId: s.milestoneSetId,
            partialCredit: s.milestonePartialCredit,
            fullSuccess: s.milestoneFullSuccess,
            furthestIndex: s.milestoneFurthestIndex,
            detail: (s.milestoneDetail ?? []) as {
              id: string;
              passed: boolean;
              spanId: string | null;
              agent: string | null;
              evaluated?: boolean;
              notEvaluatedReason?: string | null;
            }[],
          },
    findingCount: s.findingCount,
    signals: s.signals as Record<string, unknown>[],
    errorPaths: s.errorPaths as z.infer<typeof ScoresDto>["errorPaths"],
    flags: s.flags as { orphans: number; multipleRoots: boolean; clockSkew: number },
    agents: agents.map((a) => ({
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
      costUsd: a.costUsd,
      tokenShare: a.tokenShare,
      wallMs: a.wallMs,
      milestoneCredit: a.milestoneCredit,
    })),
  };
}
