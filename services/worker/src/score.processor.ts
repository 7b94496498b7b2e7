/**
 * trace.score, the second stage (docs/architecture.md §6): deterministic
 * scoring of the span set the settle stage froze. Its input hash covers the
 * span-set hash, the outcome override, the scoring configuration and the
 * baseline it used, and the scorers' version (scoreInputHash, packages/core).
 *
 * When the stored set's input hash equals the one computed now, the job stops
 * there (a duplicate job, a re-settle with no span change): only small rows
 * are read (the trace summary, the override, the configuration, the stored
 * hash), never a span body. Otherwise it reads the spans once, checks they are
 * still the frozen set (a span stored since re-opened the trace: its settle
 * will request the score again), scores (pure) and persists the whole set in
 * one transaction stamped with the settle version and the input hash; a set
 * older than the stored one is ignored. Then it starts trace.judge when a
 * judge producer is registered, and clears the score request it read.
 *
 * Failures: scoring is a pure function of the stored spans and config, so if
 * it throws, retrying cannot help: PermanentError (no retry). Database errors
 * are retried by the queue with backoff.
 */
import {
  buildTraceView,
  expressionsOf,
  prepareTrace,
  runTagsOf,
  scoreInputHash,
  scorePreparedTrace,
  spanSetHash,
  type MilestoneEvaluator,
  type MilestoneExpression,
  type RunTagsOverride,
  type SchemaValidator,
  type ScoringConfig,
  type TraceScoreRecord,
} from "@crux/core";
import {
  clearScoreRequest,
  findBaselineRun,
  getOutcomeOverride,
  getStoredScoreInputs,
  getTrace,
  getTraceSummary,
  loadScoringConfig,
  persistTraceScores,
  updateTraceAgents,
  type Database,
  type TraceSummary,
} from "@crux/db";
import type { JobQueue, Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { frozenSpanSetHash } from "./frozen-span-set.ts";
import { createMilestoneEvaluator, type MilestoneExpressionEvaluator } from "./milestone-evaluator.ts";
import { pure } from "./pure.ts";
import { createSchemaValidator } from "./schema-validator.ts";

export interface ScoreDeps {
  database: Database;
  /** Where the next stage (trace.judge) is enqueued. */
  queue: JobQueue;
  log: Logger;
  /** trace.judge is enqueued only when this is true (a fixed producer is registered) or says so for the trace (the judge policy). */
  judging?: boolean | ((projectId: string, traceId: string) => Promise<boolean>);
  /** Injected for tests; default Ajv. */
  validateSchema?: SchemaValidator;
  /** JSONata in worker threads; createWorker passes one configured from its settings (default: the built-in limits). */
  milestones?: MilestoneExpressionEvaluator;
}

interface ScoreInputsRead {
  taskId: string | null;
  config: ScoringConfig;
  baselineRun: Awaited<ReturnType<typeof findBaselineRun>>;
  hash: string;
}

export function createScoreProcessor(deps: ScoreDeps) {
  const validateSchema = deps.validateSchema ?? createSchemaValidator(deps.log);
  const milestones = deps.milestones ?? createMilestoneEvaluator({ log: deps.log });

  /** Configuration and baseline of the trace's task, and the input hash they give with the frozen span set and the override. */
  async function readInputs(trace: TraceSummary, frozen: string, override: RunTagsOverride | null, taskId: string | null): Promise<ScoreInputsRead> {
    const config = await loadScoringConfig(deps.database, trace.projectId, trace.serviceName, taskId);
    const baselineRun = taskId === null ? null : await findBaselineRun(deps.database, trace.projectId, taskId);
    return { taskId, config, baselineRun, hash: scoreInputHash({ spanSetHash: frozen, outcomeOverride: override, config, baselineRun }) };
  }

  /** The scores are current: start the judge stage if any, then clear the request this job answered. */
  async function done(trace: TraceSummary): Promise<void> {
    const judging = typeof deps.judging === "function" ? await deps.judging(trace.projectId, trace.traceId) : deps.judging === true;
    if (judging) {
      await deps.queue.enqueue("trace.judge", { projectId: trace.projectId, traceId: trace.traceId });
    }
    if (trace.scoreRequestedAt !== null) await clearScoreRequest(deps.database, trace.projectId, trace.traceId, trace.scoreRequestedAt);
  }

  return async function score(payload: Payload<"trace.score">): Promise<void> {
    const { projectId, traceId } = payload;
    const trace = await getTraceSummary(deps.database, projectId, traceId);
    if (!trace) {
      deps.log.warn(payload, "score: trace not found, nothing to do");
      return;
    }
    const frozen = await frozenSpanSetHash(deps.database, trace);
    if (frozen === null) {
      deps.log.debug(payload, "score: the trace is not settled (or was re-opened); its settle requests the score");
      return;
    }
    const override = await getOutcomeOverride(deps.database, projectId, traceId);
    const stored = await getStoredScoreInputs(deps.database, projectId, traceId);
    // Same spans and override as the stored set means the same task id: compare with its config and baseline.
    let early: ScoreInputsRead | null = null;
    if (stored?.inputHash) {
      early = await readInputs(trace, frozen, override, stored.taskId);
      if (early.hash === stored.inputHash) {
        deps.log.debug({ ...payload, version: stored.version }, "score: inputs unchanged, the stored scores are kept");
        await done(trace);
        return;
      }
    }

    const found = await getTrace(deps.database, projectId, traceId);
    if (!found) return;
    if (spanSetHash(found.spans.map((s) => s.spanId)) !== frozen) {
      deps.log.debug(payload, "score: spans arrived since the trace was settled; its next settle requests the score");
      return;
    }
    const t = pure("trajectory build", traceId, () => prepareTrace(found.spans));
    const agents = [...new Set(t.attribution.agents.map((a) => a.name))].sort();
    await updateTraceAgents(deps.database, projectId, traceId, agents);
    const tags = pure("run tags", traceId, () => runTagsOf(t, override));
    const inputs = early !== null && early.taskId === tags.taskId ? early : await readInputs(trace, frozen, override, tags.taskId);
    if (inputs.hash === stored?.inputHash) {
      deps.log.debug({ ...payload, version: stored.version }, "score: inputs unchanged, the stored scores are kept");
      await done(trace);
      return;
    }

    const expressions = expressionsOf(inputs.config);
    const evaluateMilestone: MilestoneEvaluator<MilestoneExpression> =
      expressions.length === 0
        ? () => false
        : await milestones.prepare(
            expressions,
            pure("trace view", traceId, () => buildTraceView(t, tags)),
            { projectId, traceId },
          );
    const version = trace.settleVersion;
    const record: TraceScoreRecord = pure("scoring", traceId, () =>
      scorePreparedTrace(t, {
        projectId,
        traceId,
        version,
        spans: found.spans,
        config: inputs.config,
        outcomeOverride: override,
        baselineRun: inputs.baselineRun,
        validateSchema,
        evaluateMilestone,
      }),
    );
    // Checks cut by an evaluation budget depend on load, not on the inputs: such a set is not stamped, so the next score job recomputes it.
    const complete = (record.milestones?.notEvaluated ?? 0) === 0;
    await persistTraceScores(deps.database, projectId, record, { inputHash: complete ? inputs.hash : null });
    await done(trace);
    deps.log.info(
      { ...payload, version, spans: found.spans.length, agents: agents.length, findings: record.findings.length, judging: Boolean(deps.judging) },
      "trace scored",
    );
  };
}
