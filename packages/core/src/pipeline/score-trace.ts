/**
 * scoreTrace: one settled trace in, its TraceScoreRecord out. Pure: attribution
 * → trajectories → every deterministic scorer, assembled as plain data for
 * packages/db to persist in one transaction.
 *
 * The worker needs the run tags (task id) before it can load the scoring
 * config and the baseline, so the pipeline is split in two steps:
 * prepareTrace (attribution + trajectories, computed once) and
 * scorePreparedTrace; scoreTrace chains them.
 */
import { attributeAgents } from "../attribution/index.ts";
import type { AgentKey } from "../attribution/types.ts";
import type { MilestoneEvaluator, MilestoneScore } from "../metrics/milestones.ts";
import type { Signal } from "../mast/finding.ts";
import { scoreMilestones } from "../metrics/milestones.ts";
import { scoreCommunication } from "../metrics/communication.ts";
import { coordinationScore, redundancyRate, type CoordinationRates } from "../metrics/coordination.ts";
import { scoreCost } from "../metrics/cost.ts";
import { scoreGoalDrift } from "../metrics/goal-drift.ts";
import { detectMast } from "../mast/run.ts";
import { scoreMultipliers } from "../metrics/multiplier.ts";
import { readRunTags, type RunTagsOverride, type RunTagsResult } from "../metrics/outcome.ts";
import { scoreUsage } from "../metrics/usage.ts";
import type { NormalizedSpan } from "../span.ts";
import { buildTrajectories } from "../trajectory/build.ts";
import type { TraceTrajectories } from "../trajectory/types.ts";
import { attributionRows } from "./attribution-rows.ts";
import type { MilestoneExpression, ScoreTraceInput } from "./config.ts";
import type { AgentScoreRow, TraceScoreRecord } from "./record.ts";

/** Attribution and trajectories of one trace; the worker reuses them (agent list, run tags, milestone view). */
export function prepareTrace(spans: NormalizedSpan[]): TraceTrajectories {
  return buildTrajectories(spans, attributeAgents(spans));
}

/** Run tags of a prepared trace (root span first, then any span; the API override wins). */
export function runTagsOf(t: TraceTrajectories, override: RunTagsOverride | null): RunTagsResult {
  return readRunTags(t, override ?? {});
}

export function scoreTrace(input: ScoreTraceInput): TraceScoreRecord {
  return scorePreparedTrace(prepareTrace(input.spans), input);
}

/** Name used in totals.unpricedModels for LLM spans that report tokens but no model. */
export const UNKNOWN_MODEL = "(unknown model)";

/** input.spans is ignored here: `t` was prepared from them. */
export function scorePreparedTrace(t: TraceTrajectories, input: ScoreTraceInput): TraceScoreRecord {
  const { config } = input;
  const tags = runTagsOf(t, input.outcomeOverride);
  const usage = scoreUsage(t);
  const cost = scoreCost(t, config.prices);
  const multiplier = scoreMultipliers(
    { tokens: usage.totals.totalTokens, costUsd: cost.total.totalUsd },
    { baselineRun: input.baselineRun, configured: config.configuredBaseline },
  );
  const milestones =
    config.milestoneSet === null || config.milestoneSet.milestones.length === 0
      ? null
      : scoreMilestones(t, config.milestoneSet.milestones, input.evaluateMilestone);
  // Milestones hit per message token is unknown while some milestones were not evaluated.
  const communication = milestones === null || milestones.notEvaluated > 0 ? null : scoreCommunication(t, milestones);
  const drift = scoreGoalDrift(t);
  const mast = detectMast(t, {
    agentContracts: config.agentContracts,
    handoffContracts: config.handoffContracts,
    validateSchema: input.validateSchema,
    ...(config.repetitionK === null ? {} : { repetitionK: config.repetitionK }),
    milestones,
    evaluate: completionEvaluator(input.evaluateMilestone),
    outcomeSuccess: tags.success,
  });
  // Coordination rates from the detectors' results (role contracts and ignored input already ran in detectMast).
  const rates: CoordinationRates = {
    redundancy: redundancyRate(t).rate,
    ignoredHandoffs: mast.ignoredInput.rate,
    roleViolations: mast.roleContracts.rate,
  };
  const coordination = { rates, coord: coordinationScore(rates, config.coordinationWeights ?? undefined) };

  const costByAgent = new Map<AgentKey | null, number | null>(cost.agents.map((a) => [a.key, a.totalUsd]));
  const creditByAgent = new Map((milestones?.agentCredit ?? []).map((c) => [c.agent, c.credit]));
  const agents: AgentScoreRow[] = usage.agents.map((u) => {
    const attributed = t.attribution.agents.find((a) => a.key === u.key);
    return {
      agent: u.agent,
      agentId: attributed?.id ?? null,
      parentAgent: u.parentAgent,
      spans: u.spans,
      llmCalls: u.llmCalls,
      toolCalls: u.toolCalls,
      errors: u.errors,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cachedTokens: u.cachedTokens,
      tokensReported: u.tokensReported,
      // No counted usage at all costs nothing; usage on an unpriced model is unknown (null), never 0.
      // (Tokens not reported at all are stored as 0 too, so window sums stay sums; readers serve them as unknown.)
      costUsd: costByAgent.has(u.key) ? (costByAgent.get(u.key) ?? null) : 0,
      tokenShare: u.tokenShare ?? 0,
      wallMs: Number(u.wallTimeNs) / 1e6,
      milestoneCredit: milestones === null ? null : (creditByAgent.get(u.agent) ?? 0),
    };
  });

  const { startNs, endNs } = timeBounds(t.spans);
  const root = t.rootSpanId === null ? undefined : t.spanById.get(t.rootSpanId);
  return {
    traceId: input.traceId,
    version: input.version,
    serviceName: root?.serviceName ?? t.spans.find((s) => s.serviceName !== null)?.serviceName ?? null,
    startNs,
    endNs,
    run: {
      success: tags.success,
      score: tags.score,
      taskId: tags.taskId,
      variant: tags.variant,
      isBaseline: tags.isBaseline === true,
      experimentId: tags.experimentId,
      seed: tags.seed,
      trial: tags.trial,
      activeAgents: tags.activeAgents,
      replayId: tags.replayId,
    },
    totals: {
      ...usage.totals,
      costUsd: cost.total.totalUsd,
      unpricedModels: [...new Set(cost.unpriced.map((u) => u.model ?? UNKNOWN_MODEL))].sort(),
    },
    multiplier,
    coordination: { ...coordination.rates, score: coordination.coord },
    communicationEfficiency: communication?.value ?? null,
    goalDrift: drift.drift,
    milestones:
      milestones === null || config.milestoneSet === null
        ? null
        : {
            setId: config.milestoneSet.id,
            partialCredit: milestones.notEvaluated > 0 ? null : (milestones.partialCredit ?? 0),
            fullSuccess: milestones.fullSuccess,
            furthestIndex: milestones.furthestIndex,
            notEvaluated: milestones.notEvaluated,
            detail: milestones.detail.map((d) => ({
              id: d.id,
              passed: d.passed,
              evaluated: d.evaluated,
              notEvaluatedReason: d.notEvaluatedReason,
              spanId: d.spanId,
              agent: d.agent,
            })),
          },
    agents,
    findings: mast.findings,
    signals: milestones === null || milestones.notEvaluated === 0 ? mast.signals : [...mast.signals, notEvaluatedSignal(milestones)],
    errorPaths: usage.errorPaths.map((e) => ({
      spanId: e.spanId,
      stepIndex: e.stepIndex,
      agent: e.agent,
      depth: e.depth,
      path: e.path,
      errorType: e.errorType,
    })),
    attributions: attributionRows(t, tags.success, mast),
    handoffs: t.handoffs.map((h) => ({
      index: h.index,
      sender: h.sender,
      receiver: h.receiver,
      spanId: h.spanId,
      via: h.via,
      message: h.message,
      startNs: h.startNs,
    })),
    trajectories: t.agents.map((a) => ({
      agent: a.name,
      steps: a.steps.map((s) => ({
        index: s.index,
        spanId: s.spanId,
        kind: s.kind,
        toolName: s.toolName,
        isError: s.isError,
        inputTokens: s.tokens.inputTokens,
        outputTokens: s.tokens.outputTokens,
        startNs: s.startNs,
      })),
    })),
    flags: { orphans: t.flags.orphans.length, multipleRoots: t.flags.multipleRoots, clockSkew: t.flags.clockSkew.length },
  };
}

function notEvaluatedSignal(m: MilestoneScore): Signal {
  const reasons = [...new Set(m.detail.map((d) => d.notEvaluatedReason).filter((r) => r !== null))];
  const why = reasons.map((r) => (r === "trace_budget" ? "the trace's evaluation budget" : "the project's evaluation budget for this minute")).join(" and ");
  return {
    kind: "milestones_not_evaluated",
    agents: [],
    spanIds: [],
    stepIndices: [],
    confidence: 1,
    evidence: `${m.notEvaluated} of ${m.detail.length} milestones not evaluated: ${why} ran out (partial credit and full success unknown)`,
  };
}

/** Contracts' completion conditions are milestone expressions too; anything else cannot be evaluated and does not fire. */
function completionEvaluator(evaluate: MilestoneEvaluator<MilestoneExpression>): MilestoneEvaluator {
  return (check, view) => (typeof check === "string" ? evaluate(check, view) : true);
}

function timeBounds(spans: NormalizedSpan[]): { startNs: bigint; endNs: bigint } {
  let startNs: bigint | null = null;
  let endNs: bigint | null = null;
  for (const s of spans) {
    if (startNs === null || s.startTimeUnixNano < startNs) startNs = s.startTimeUnixNano;
    if (endNs === null || s.endTimeUnixNano > endNs) endNs = s.endTimeUnixNano;
  }
  return { startNs: startNs ?? 0n, endNs: endNs ?? startNs ?? 0n };
}
