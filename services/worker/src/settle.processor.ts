/**
 * trace.settle: a trace has been quiet for the settle delay (jobs are
 * debounced by trace id, so one settle per trace runs at a time). Rebuild its
 * span tree, store the agent list, score it (packages/core scoreTrace, pure)
 * and persist the scores in one transaction stamped with the settle version,
 * then clear the dirty flag — unless spans arrived meanwhile: the flag stays,
 * their own settle job runs after this one and replaces the scores.
 *
 * When the job runs is decided by the receiver: the quiet period
 * (CRUX_SETTLE_DELAY_MS), or the shorter CRUX_SETTLE_ROOT_DELAY_MS when the
 * root span arrived with all its children. A late span re-opens the trace and
 * it is scored again.
 *
 * Failures: scoring is a pure function of the stored spans and config, so if
 * it throws, retrying cannot help: PermanentError (no retry). Database errors
 * are retried by the queue with backoff.
 */
import {
  buildTraceView,
  expressionsOf,
  isPermanent,
  PermanentError,
  prepareTrace,
  runTagsOf,
  scorePreparedTrace,
  type MilestoneEvaluator,
  type MilestoneExpression,
  type SchemaValidator,
  type TraceScoreRecord,
  type TraceTrajectories,
} from "@crux/core";
import {
  findBaselineRun,
  getOutcomeOverride,
  getTrace,
  loadScoringConfig,
  markTraceSettled,
  persistTraceScores,
  updateTraceAgents,
  type Database,
} from "@crux/db";
import type { Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { createMilestoneEvaluator, type MilestoneExpressionEvaluator } from "./milestone-evaluator.ts";
import { createSchemaValidator } from "./schema-validator.ts";

export interface SettleDeps {
  database: Database;
  log: Logger;
  /** Injected for tests; default Ajv. */
  validateSchema?: SchemaValidator;
  /** JSONata in worker threads; createWorker passes one configured from its settings (default: the built-in limits). */
  milestones?: MilestoneExpressionEvaluator;
}

/** Runs pure code; anything it throws is deterministic, hence permanent. */
function pure<T>(what: string, traceId: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (isPermanent(err)) throw err;
    throw new PermanentError("scoring_failed", `${what} failed for trace ${traceId}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: String(err),
    });
  }
}

export function createSettleProcessor(deps: SettleDeps) {
  const validateSchema = deps.validateSchema ?? createSchemaValidator(deps.log);
  const milestones = deps.milestones ?? createMilestoneEvaluator({ log: deps.log });

  return async function settle(payload: Payload<"trace.settle">): Promise<void> {
    const { projectId, traceId } = payload;
    const found = await getTrace(deps.database, projectId, traceId);
    if (!found) {
      deps.log.warn(payload, "settle: trace not found, nothing to do");
      return;
    }
    if (!found.trace.dirty) {
      // Already settled and nothing arrived since (a duplicate or sweeper job): the stored scores are current.
      deps.log.debug(payload, "settle: trace is not dirty, nothing to do");
      return;
    }
    const t: TraceTrajectories = pure("trajectory build", traceId, () => prepareTrace(found.spans));
    const agents = [...new Set(t.attribution.agents.map((a) => a.name))].sort();
    await updateTraceAgents(deps.database, projectId, traceId, agents);

    const override = await getOutcomeOverride(deps.database, projectId, traceId);
    const tags = pure("run tags", traceId, () => runTagsOf(t, override));
    const config = await loadScoringConfig(deps.database, projectId, found.trace.serviceName, tags.taskId);
    const baselineRun = tags.taskId === null ? null : await findBaselineRun(deps.database, projectId, tags.taskId);

    const expressions = expressionsOf(config);
    const evaluateMilestone: MilestoneEvaluator<MilestoneExpression> =
      expressions.length === 0
        ? () => false
        : await milestones.prepare(
            expressions,
            pure("trace view", traceId, () => buildTraceView(t, tags)),
            { projectId, traceId },
          );

    // The version markTraceSettled is about to set: scores and trace agree on it.
    const version = found.trace.settleVersion + 1;
    const record: TraceScoreRecord = pure("scoring", traceId, () =>
      scorePreparedTrace(t, {
        projectId,
        traceId,
        version,
        spans: found.spans,
        config,
        outcomeOverride: override,
        baselineRun,
        validateSchema,
        evaluateMilestone,
      }),
    );
    await persistTraceScores(deps.database, projectId, record);
    const cleared = await markTraceSettled(deps.database, projectId, traceId, found.trace.lastReceivedAt);
    deps.log.info(
      { ...payload, version, spans: found.spans.length, agents: agents.length, findings: record.findings.length, cleared },
      "trace settled and scored",
    );
  };
}
