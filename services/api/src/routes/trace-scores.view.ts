/** Shape of GET /traces/:traceId/scores: the stored summary row, grouped for reading. */
import type { ErrorPath, MilestoneDetail, Scores } from "@crux/contracts";
import type { TraceAgentUsageRow, TraceScoreSummary } from "@crux/db";
import { nsToIso, nsToMs } from "../time.ts";
import { agentUsageView, totalsView } from "./score-set.view.ts";

export function traceScoresView(s: TraceScoreSummary, agents: TraceAgentUsageRow[]): Scores {
  return {
    version: s.version,
    serviceName: s.serviceName,
    startTime: nsToIso(s.startNs),
    durationMs: nsToMs(s.endNs - s.startNs),
    scoredAt: s.scoredAt.toISOString(),
    run: { success: s.success, score: s.score, taskId: s.taskId, variant: s.variant, isBaseline: s.isBaseline, experimentId: s.experimentId, seed: s.seed },
    totals: totalsView(s),
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
            detail: (s.milestoneDetail ?? []) as MilestoneDetail[],
          },
    findingCount: s.findingCount,
    signals: s.signals as Record<string, unknown>[],
    errorPaths: s.errorPaths as ErrorPath[],
    flags: s.flags as { orphans: number; multipleRoots: boolean; clockSkew: number },
    agents: agents.map(agentUsageView),
  };
}
