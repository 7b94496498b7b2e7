/**
 * trace.score, the second stage (docs/architecture.md §6): deterministic
 * scoring of the span set the settle stage froze. Its input hash covers the
 * span-set hash, the outcome override, the scoring configuration and the
 * baseline it used, and the scorers' version (scoreInputHash, packages/core).
 *
 * When the stored set's input hash equals the one computed now, the job stops
 * there (a duplicate job, a re-settle with no span change): one query reads the
 * trace summary, the override, the stored hash and the project's config
 * fingerprint (readScoreJobState); the configuration itself is kept between
 * jobs while that fingerprint holds (scoring/scoring-config-cache.ts); no span body is
 * read. Otherwise it reads the spans once, checks they are still the frozen set
 * (a span stored since re-opened the trace: its settle will request the score
 * again), scores (pure) and persists the whole set stamped with the settle
 * version and the input hash, together with the trace's agent list and the
 * clear of the score request it read, in one transaction it may share with the
 * sets other jobs finish meanwhile (scoring/score-writer.ts); a set older than the
 * stored one is ignored. With a judge producer registered it enqueues
 * trace.judge first and clears the request after, so a failed enqueue leaves
 * the request for the sweeper.
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
  scorePreparedTrace,
  spanSetHash,
  type MilestoneEvaluator,
  type MilestoneExpression,
  type RunTagsOverride,
  type SchemaValidator,
  type TraceScoreRecord,
} from "@crux/core";
import { clearScoreRequest, listTraceSpans, readScoreJobState, requestJudge, type Database, type TraceSummary } from "@crux/db";
import { addContent } from "@crux/otlp";
import type { JobQueue, Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { frozenSpanSetHash } from "../scoring/frozen-span-set.ts";
import type { WorkerMetrics } from "../metrics.ts";
import { createMilestoneEvaluator, type MilestoneExpressionEvaluator } from "../milestones/milestone-evaluator.ts";
import { pure } from "../scoring/pure.ts";
import { createSchemaValidator } from "../scoring/schema-validator.ts";
import { createScoreWriter } from "../scoring/score-writer.ts";
import { createScoringConfigCache, type ScoringInputs } from "../scoring/scoring-config-cache.ts";

export interface ScoreDeps {
  database: Database;
  /** Where the next stage (trace.judge) is enqueued. */
  queue: JobQueue;
  log: Logger;
  /** trace.judge is enqueued only when this is true (a fixed producer is registered) or says so for the trace (the judge policy). */
  /** A function gets the project's judge settings stamp as read with the job's state (JudgePolicy.shouldJudge). */
  judging?: boolean | ((projectId: string, traceId: string, failed: boolean, settingsStamp: string) => Promise<boolean>);
  /** Injected for tests; default Ajv. */
  validateSchema?: SchemaValidator;
  /** JSONata in worker threads; createWorker passes one configured from its settings (default: the built-in limits). */
  milestones?: MilestoneExpressionEvaluator;
  /** Time per part of a scored trace (crux_worker_score_part_seconds). */
  metrics?: WorkerMetrics;
}

/** The parts of a scored trace's cost, as crux_worker_score_part_seconds labels them. */
export type ScorePart = "read_state" | "read_config" | "read_spans" | "trajectories" | "milestones" | "scorers" | "persist";

interface ScoreInputsRead extends ScoringInputs {
  taskId: string | null;
  hash: string;
}

export function createScoreProcessor(deps: ScoreDeps) {
  const validateSchema = deps.validateSchema ?? createSchemaValidator(deps.log);
  const milestones = deps.milestones ?? createMilestoneEvaluator({ log: deps.log });
  const configs = createScoringConfigCache(deps.database);
  const writer = createScoreWriter(deps.database);

  /** Configuration and baseline of the trace's task (kept while the project's fingerprint holds), and the input hash they give. */
  async function readInputs(
    trace: TraceSummary,
    fingerprint: string,
    frozen: string,
    override: RunTagsOverride | null,
    taskId: string | null,
  ): Promise<ScoreInputsRead> {
    const inputs = await configs.get(trace.projectId, trace.serviceName, taskId, fingerprint);
    return { ...inputs, taskId, hash: inputs.inputHash(frozen, override) };
  }

  /** Whether this trace goes on to the judge stage; `success` is its outcome (stored or just computed). */
  async function judgesTrace(trace: TraceSummary, success: boolean | null, settingsStamp: string, metricsExcluded: boolean): Promise<boolean> {
    // Experiment and replay runs the project keeps out of production metrics stay out of judge sampling and budget too.
    if (metricsExcluded) return false;
    if (typeof deps.judging !== "function") return deps.judging === true;
    return deps.judging(trace.projectId, trace.traceId, trace.hasError || success === false, settingsStamp);
  }

  /**
   * The scores are current: clear the request this job answered and, when the judges are due, record the
   * judge request in the same statement, then enqueue the judge job (lost or not enqueued, the sweeper
   * enqueues it again from the request).
   */
  async function done(trace: TraceSummary, judging: boolean): Promise<void> {
    if (judging) {
      await requestJudge(deps.database, trace.projectId, trace.traceId, { clearScoreRequest: trace.scoreRequestedAt });
      await deps.queue.enqueue("trace.judge", { projectId: trace.projectId, traceId: trace.traceId }, { delayMs: 0 });
    } else if (trace.scoreRequestedAt !== null) await clearScoreRequest(deps.database, trace.projectId, trace.traceId, trace.scoreRequestedAt);
  }

  return async function score(payload: Payload<"trace.score">): Promise<void> {
    const { projectId, traceId } = payload;
    const ms: Partial<Record<ScorePart, number>> = {};
    let mark = performance.now();
    const lap = (part: ScorePart) => {
      const now = performance.now();
      ms[part] = (ms[part] ?? 0) + (now - mark);
      mark = now;
    };
    // One round trip: summary, override, stored input hash, config fingerprint, judge settings stamp.
    const state = await readScoreJobState(deps.database, projectId, traceId);
    if (!state) {
      deps.log.warn(payload, "score: trace not found, nothing to do");
      return;
    }
    const { trace, override, stored, configFingerprint, judgeSettingsStamp, experimentsInMetrics } = state;
    const frozen = await frozenSpanSetHash(deps.database, trace);
    if (frozen === null) {
      deps.log.debug(payload, "score: the trace is not settled (or was re-opened); its settle requests the score");
      return;
    }
    lap("read_state");
    // Same spans and override as the stored set means the same task id: compare with its config and baseline.
    let early: ScoreInputsRead | null = null;
    if (stored?.inputHash) {
      early = await readInputs(trace, configFingerprint, frozen, override, stored.taskId);
      if (early.hash === stored.inputHash) {
        deps.log.debug({ ...payload, version: stored.version }, "score: inputs unchanged, the stored scores are kept");
        await done(trace, await judgesTrace(trace, stored.success, judgeSettingsStamp, stored.metricsExcluded));
        return;
      }
      lap("read_config");
    }

    const storedSpans = await listTraceSpans(deps.database, projectId, traceId);
    if (spanSetHash(storedSpans.map((s) => s.spanId)) !== frozen) {
      deps.log.debug(payload, "score: spans arrived since the trace was settled; its next settle requests the score");
      return;
    }
    // Content and run tags are derived from the stored attributes, never stored (addContent adds them in place).
    const spans = storedSpans.map(addContent);
    lap("read_spans");
    const t = pure("trajectory build", traceId, () => prepareTrace(spans));
    const agents = [...new Set(t.attribution.agents.map((a) => a.name))].sort();
    const tags = pure("run tags", traceId, () => runTagsOf(t, override));
    lap("trajectories");
    const inputs = early !== null && early.taskId === tags.taskId ? early : await readInputs(trace, configFingerprint, frozen, override, tags.taskId);
    lap("read_config");
    if (inputs.hash === stored?.inputHash) {
      // (The stored set came from the same span set: its agent list is this one.)
      deps.log.debug({ ...payload, version: stored.version }, "score: inputs unchanged, the stored scores are kept");
      await done(trace, await judgesTrace(trace, stored.success, judgeSettingsStamp, stored.metricsExcluded));
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
    lap("milestones");
    const version = trace.settleVersion;
    const record: TraceScoreRecord = pure("scoring", traceId, () =>
      scorePreparedTrace(t, {
        projectId,
        traceId,
        version,
        spans,
        config: inputs.config,
        outcomeOverride: override,
        baselineRun: inputs.baselineRun,
        validateSchema,
        evaluateMilestone,
      }),
    );
    lap("scorers");
    // Checks cut by an evaluation budget depend on load, not on the inputs: such a set is not stamped, so the next score job recomputes it.
    const complete = (record.milestones?.notEvaluated ?? 0) === 0;
    const experimentRun = record.run.experimentId !== null || record.run.replayId !== null;
    const judging = await judgesTrace(trace, record.run.success, judgeSettingsStamp, experimentRun && !experimentsInMetrics);
    // The agent list and (without a judge stage to start first) the score request go with the set, in its transaction.
    // Written with the sets other jobs finish meanwhile, in one transaction (scoring/score-writer.ts).
    await writer.write(projectId, {
      record,
      opts: { inputHash: complete ? inputs.hash : null, agents, clearScoreRequest: judging ? null : trace.scoreRequestedAt },
    });
    if (judging) await done(trace, true);
    lap("persist");
    for (const [part, v] of Object.entries(ms)) deps.metrics?.scoreParts.observe({ part }, v / 1000);
    deps.log.info(
      {
        ...payload,
        version,
        spans: spans.length,
        agents: agents.length,
        findings: record.findings.length,
        judging,
        inputHash: complete ? inputs.hash : null,
        ms: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v * 10) / 10])),
      },
      "trace scored",
    );
  };
}
