/** The worker as a unit: queue processors plus the sweeper, from explicit dependencies. */
import { judgeLimitsOf, judgePolicyDefaultsOf, judgeServiceDefaultOf, validationBarOf } from "@crux/config";
import { compactScoreRollups, createSecretBox, describeStorageError, type Database, type SecretBox } from "@crux/db";
import type { JobHandlers, JobOutcomeEvent, JobQueue, JobRunnerOptions } from "@crux/queue";
import { createMetricsRegistry, type Logger, type Registry } from "@crux/runtime";
import { resolveWorkerConfig, type WorkerConfig } from "./config.ts";
import { createWorkerMetrics, type JobOutcome, type WorkerMetrics } from "./metrics.ts";
import { createMilestoneEvaluator, type MilestoneExpressionEvaluator } from "./milestones/milestone-evaluator.ts";
import { assertJudgeProducers, type JudgeProducer } from "./judging/judge-producer.ts";
import { createJudgeProcessor } from "./processors/judge.processor.ts";
import { createJudgePolicy } from "./judging/judge-policy.ts";
import type { JudgeSuiteFactory } from "./judging/judge-suite.ts";
import { createProjectSlots } from "./project-slots.ts";
import { createScoreProcessor } from "./processors/score.processor.ts";
import { createSettleProcessor } from "./processors/settle.processor.ts";
import { createSweeper } from "./sweeper.ts";
import { createAlertsEvaluateProcessor } from "./processors/alerts-evaluate.processor.ts";
import { createWebhookDeliverProcessor } from "./processors/webhook-deliver.processor.ts";
import { createExperimentDispatchProcessor } from "./processors/experiment-dispatch.processor.ts";
import { createOutboundFetch, type Resolver } from "@crux/outbound";

export interface WorkerDeps {
  database: Database;
  queue: JobQueue;
  config: WorkerConfig;
  log: Logger;
  /** Where the worker's metrics are registered; the all-in-one process passes its shared one. Default: a fresh registry. */
  registry?: Registry;
  /** Default: JSONata in worker threads with the config's limits and budgets. */
  milestones?: MilestoneExpressionEvaluator;
  /** Fixed judge producers run by trace.judge for every project (none by default). */
  judges?: readonly JudgeProducer[];
  /** Hostname resolution for webhook deliveries and judge providers (default: the system's); tests point a name at an address. */
  outboundResolver?: Resolver;
  /**
   * Builds the LLM judges of a project from its judge settings (packages/judges' createJudgeSuite).
   * Without it no LLM judge runs; with it, trace.judge is enqueued for the traces the judge policy picks.
   */
  judgeSuites?: JudgeSuiteFactory;
  /** Opens the provider keys projects stored. Default: from CRUX_SECRET_KEY, else none (such projects' judges are off, with the reason). */
  secretBox?: SecretBox | null;
  /** Clock of the judges' daily budget and call records; Date.now unless a test injects one. */
  now?: () => number;
}

/**
 * The worker's side of the queue's job runner: counts and times every run
 * (the runner classifies it), and makes failures leave without SQL text or
 * parameters (describeStorageError).
 */
function jobRunnerHooks(metrics: WorkerMetrics): JobRunnerOptions {
  const outcomeLabel: Record<JobOutcomeEvent["outcome"], JobOutcome> = {
    completed: "completed",
    deferred: "deferred",
    retry: "retry",
    "failed-permanent": "failed",
    "failed-exhausted": "failed",
  };
  return {
    describeFailure: (err) => describeStorageError(err).message,
    onOutcome(event) {
      const outcome = outcomeLabel[event.outcome];
      if (event.outcome === "retry") metrics.retries.inc({ queue: event.queue });
      if (outcome === "failed") metrics.permanentFailures.inc({ queue: event.queue, reason: event.outcome === "failed-permanent" ? "permanent" : "exhausted" });
      metrics.jobs.inc({ queue: event.queue, outcome });
      metrics.jobDuration.observe({ queue: event.queue, outcome }, event.durationMs / 1000);
    },
  };
}

/**
 * How long a judge lease holds (processors/judge.processor.ts): past the longest run, so a live holder
 * never loses it. A run sends at most `judgePromptsPerRun` prompts (the step-by-step walk: five
 * windows), each at most `judgeAttempts` calls of the judge timeout, with at most
 * `judgeRetryWaitMs` slept between them (packages/judges' defaults). A holder that crashed
 * keeps the producer waiting that long.
 */
const judgePromptsPerRun = 5;
const judgeAttempts = 3;
const judgeRetryWaitMs = 10_000;
const judgeLeaseMsOf = (timeoutMs: number) => judgePromptsPerRun * judgeAttempts * (timeoutMs + judgeRetryWaitMs);

export function createWorker(deps: WorkerDeps) {
  const config = resolveWorkerConfig(deps.config);
  const registry = deps.registry ?? createMetricsRegistry();
  const metrics = createWorkerMetrics(registry);
  const milestones =
    deps.milestones ??
    createMilestoneEvaluator({
      log: deps.log,
      limits: { timeoutMs: config.CRUX_MILESTONE_TIMEOUT_MS },
      threads: config.CRUX_MILESTONE_THREADS,
      traceBudgetMs: config.CRUX_MILESTONE_TRACE_BUDGET_MS,
      projectBudgetMs: config.CRUX_MILESTONE_PROJECT_BUDGET_MS,
      metrics,
    });
  // One box opens what the API sealed: judge provider keys and webhook signing secrets.
  const secretBox = deps.secretBox !== undefined ? deps.secretBox : config.CRUX_SECRET_KEY ? createSecretBox(config.CRUX_SECRET_KEY) : null;
  const judges = deps.judges ?? [];
  assertJudgeProducers(judges);
  const judgeLimits = judgeLimitsOf(config);
  // Provider calls go through the outbound guard: a project's base URL reaches only what the operator
  // allows; the operator's own (CRUX_JUDGE_BASE_URL, OPENAI_BASE_URL) is trusted to be private.
  const resolver = deps.outboundResolver ? { resolver: deps.outboundResolver } : {};
  const judgeFetch = {
    project: createOutboundFetch({ privateTargets: config.CRUX_ALLOW_PRIVATE_TARGETS, ...resolver }),
    service: createOutboundFetch({ privateTargets: "private", ...resolver }),
  };
  const policy = deps.judgeSuites
    ? createJudgePolicy({
        database: deps.database,
        factory: deps.judgeSuites,
        defaults: { model: judgeServiceDefaultOf(config), ...judgePolicyDefaultsOf(config) },
        secretBox,
        now: deps.now ?? Date.now,
        budgetRecheckMs: config.CRUX_JUDGE_BUDGET_RECHECK_MS,
        limits: { timeoutMs: config.CRUX_JUDGE_TIMEOUT_MS, maxAttempts: judgeAttempts, maxRetryWaitMs: judgeRetryWaitMs },
        fetchFor: (source) => (source === "service" ? judgeFetch.service : judgeFetch.project),
        endpoints: { counter: deps.queue, ratePerWindow: judgeLimits.ratePerMinute, concurrency: judgeLimits.concurrency },
      })
    : undefined;
  // Fixed producers judge every trace; otherwise the policy picks (failed traces, a share of the rest, judges on).
  const judging = judges.length > 0 ? true : policy ? policy.shouldJudge : false;
  const settle = createSettleProcessor({ database: deps.database, queue: deps.queue, log: deps.log });
  const alerts = createAlertsEvaluateProcessor({
    database: deps.database,
    queue: deps.queue,
    log: deps.log,
    publicUrl: config.CRUX_PUBLIC_URL,
    validationBar: validationBarOf(config),
    onEvent: (type) => metrics.alertEvents.inc({ type }),
  });
  const deliverWebhook = createWebhookDeliverProcessor({
    database: deps.database,
    log: deps.log,
    timeoutMs: config.CRUX_WEBHOOK_TIMEOUT_MS,
    secretBox,
    retryPolicy: {
      maxAttempts: config.CRUX_WEBHOOK_MAX_ATTEMPTS,
      baseDelayMs: config.CRUX_WEBHOOK_RETRY_BASE_MS,
      maxDelayMs: config.CRUX_WEBHOOK_RETRY_MAX_MS,
      maxRetryAfterMs: config.CRUX_WEBHOOK_RETRY_MAX_MS,
    },
    privateTargets: config.CRUX_ALLOW_PRIVATE_TARGETS,
    ...(deps.outboundResolver ? { resolver: deps.outboundResolver } : {}),
    onAttempt: (result) => metrics.webhookAttempts.inc({ result }),
  });
  // Runs go to runners through the same signing, outbound guard and retry policy as webhooks.
  const dispatchRun = createExperimentDispatchProcessor({
    database: deps.database,
    log: deps.log,
    timeoutMs: config.CRUX_WEBHOOK_TIMEOUT_MS,
    secretBox,
    retryPolicy: {
      maxAttempts: config.CRUX_WEBHOOK_MAX_ATTEMPTS,
      baseDelayMs: config.CRUX_WEBHOOK_RETRY_BASE_MS,
      maxDelayMs: config.CRUX_WEBHOOK_RETRY_MAX_MS,
      maxRetryAfterMs: config.CRUX_WEBHOOK_RETRY_MAX_MS,
    },
    privateTargets: config.CRUX_ALLOW_PRIVATE_TARGETS,
    ...(deps.outboundResolver ? { resolver: deps.outboundResolver } : {}),
  });
  const score = createScoreProcessor({ database: deps.database, queue: deps.queue, log: deps.log, milestones, judging, metrics });
  const judge = createJudgeProcessor({
    database: deps.database,
    log: deps.log,
    producers: judges,
    policy,
    leaseMs: judgeLeaseMsOf(config.CRUX_JUDGE_TIMEOUT_MS),
  });
  async function compactRollups(): Promise<void> {
    const result = await compactScoreRollups(deps.database);
    if (result.foldedTraces > 0) metrics.rollupTracesFolded.inc(result.foldedTraces);
    if (result.moved > 0) metrics.rollupDeltasCompacted.inc(result.moved);
    // More pending than one run moves: scoring writes faster than a tick folds; the next tick goes on (reads stay right).
    if (result.pending)
      deps.log.warn(
        { foldedTraces: result.foldedTraces, moved: result.moved },
        "rollup compaction is behind: more pending traces or delta rows than one run moves",
      );
  }
  const slots = createProjectSlots(config.CRUX_WORKER_PROJECT_CONCURRENCY);
  const sweeper = createSweeper({
    database: deps.database,
    queue: deps.queue,
    intervalMs: config.CRUX_SWEEP_INTERVAL_MS,
    quietMs: config.CRUX_SWEEP_QUIET_MS,
    log: deps.log,
    onReenqueued: (n) => metrics.sweeperReenqueued.inc(n),
  });
  return {
    sweeper,
    registry,
    config,
    start() {
      const concurrency = config.CRUX_WORKER_CONCURRENCY;
      // One handler per queue of the registry: a queue added there without its entry here fails the typecheck.
      // Settling reads span ids only; scoring and judging hold a project slot, so one project cannot take them all.
      const handlers = {
        "trace.settle": settle,
        "trace.score": (payload) => slots.run(payload.projectId, () => score(payload)),
        // Enqueued only for traces some judge will read.
        "trace.judge": (payload) => slots.run(payload.projectId, () => judge(payload)),
        // Its interval is the queue's (withScheduleEvery with CRUX_ALERTS_EVALUATE_INTERVAL_MS, where the queue is created).
        "alerts.evaluate": () => alerts.evaluateAlerts(),
        "alerts.evaluate-rule": ({ projectId, ruleId }) => alerts.evaluateOneRule(projectId, ruleId),
        "webhook.deliver": deliverWebhook,
        "experiment.dispatch": dispatchRun,
        "rollups.compact": () => compactRollups(),
      } satisfies Required<JobHandlers>;
      deps.queue.start(handlers, {
        concurrency: {
          "trace.settle": concurrency,
          "trace.score": concurrency,
          "trace.judge": concurrency,
          "alerts.evaluate": 1,
          "alerts.evaluate-rule": 1,
          "webhook.deliver": concurrency,
          "experiment.dispatch": concurrency,
          "rollups.compact": 1,
        },
        ...jobRunnerHooks(metrics),
      });
      sweeper.start();
    },
    /** Stops the sweeper; the queue's own close() lets in-flight jobs finish. */
    async stop() {
      await sweeper.stop();
    },
    /** Ends the evaluation threads; after the queue has closed (in-flight jobs may still evaluate until then). */
    async close() {
      await milestones.close();
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
