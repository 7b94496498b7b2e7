/**
 * The LLM judges' service side through the worker, on real queues (in-process
 * and BullMQ on Redis) and both databases: the project's judge settings (key
 * sealed at rest, opened by the worker), judges off (nothing enqueued, nothing
 * fails), the sampling policy (failed traces always, the share of the rest),
 * call records (those of a failed, retried run too), the verdict cache keyed
 * by model (a re-score does not pay twice; a new model judges again), and the daily
 * budget (jobs wait, then resume the next UTC day on the injected clock), and the runs per
 * minute per provider endpoint (CRUX_JUDGE_RATE_PER_MINUTE; judge-limits.int.test.ts tests the rest).
 * The suite is a scripted factory with the shape of packages/judges'
 * createJudgeSuite: what is tested is the worker's machinery, not a model.
 */
import { mastModeIds, type JudgeCallRecord, type JudgeKind, type JudgeModelSettings, type JudgeVerdictResult } from "@crux/contracts";
import {
  createSecretBox,
  ensureProject,
  getTraceSummary,
  insertSpanBatch,
  listJudgeCalls,
  listVerdicts,
  putJudgeSettings,
  requestJudge,
  type JudgeSettingsInput,
} from "@crux/db";
import { createJudgeSuite, JudgeUnavailableError } from "@crux/judges";
import { createMetricsRegistry } from "@crux/runtime";
import type { QueueName } from "@crux/queue";
import { startMockLlmServer, testDatabases, testQueues } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import type { JudgeSuiteFactory } from "../src/judging/judge-suite.ts";
import type { WorkerConfig } from "../src/config.ts";
import { createWorker } from "../src/worker.ts";
import { jobsCounted, recordingLog, reportTrace, stopTestWorker, until } from "./traces.ts";

const PROJECT = "p-judges";
const DAY = 86_400_000;
const KEY = "sk-test-provider-key-0001";
const box = createSecretBox("a test secret of at least thirty-two characters");

const queues = testQueues({ queuePrefix: "test-judges" });
const cases = testDatabases().flatMap((db) => queues.map((q) => ({ name: `${db.name} + ${q.name}`, db, q })));

/** A suite whose judges answer with no finding and one $0.01 call each, recording what they were built with and every run. */
function scriptedSuites() {
  const built: JudgeModelSettings[] = [];
  const runs: { kind: JudgeKind; model: string; spans: number }[] = [];
  /** Set by a test: how long each run takes; how many runs fail next (provider unavailable after one 503, as packages/judges throws it; a 429 past the retries defers the trace instead). */
  const control = { delayMs: 0, failNext: 0, started: 0 };
  const factory: JudgeSuiteFactory = (settings, options) => {
    built.push(settings);
    const kinds = options?.kinds ?? (["mast-checklist", "handoff-preservation"] as const);
    return {
      judges: kinds.map((kind) => ({
        id: `judge.${kind}` as const,
        kind,
        version: 1,
        model: settings.model,
        inputs: ["spans"] as const,
        asksAbout: kind === "handoff-preservation" ? (["FM-2.4"] as const) : mastModeIds,
        async run({ spans }) {
          control.started++;
          if (control.delayMs > 0) await new Promise((r) => setTimeout(r, control.delayMs));
          if (control.failNext > 0) {
            control.failNext--;
            const unavailable: JudgeCallRecord = {
              kind,
              promptVersion: 1,
              provider: settings.provider,
              model: settings.model,
              inputTokens: 1_000,
              outputTokens: 0,
              costUsd: 0,
              latencyMs: 3,
              outcome: "provider_error",
              error: "503 Service Unavailable",
            };
            throw new JudgeUnavailableError("provider answered 503", 1, [unavailable]);
          }
          runs.push({ kind, model: settings.model, spans: spans.length });
          const result: JudgeVerdictResult = {
            kind,
            promptVersion: 1,
            provider: settings.provider,
            model: settings.model,
            findings: [],
            attribution: null,
            outcome: null,
            omitted: [],
            rejected: [],
            selfPreferenceWarning: null,
          };
          const call: JudgeCallRecord = {
            kind,
            promptVersion: 1,
            provider: settings.provider,
            model: settings.model,
            inputTokens: 1_000,
            outputTokens: 100,
            costUsd: 0.01,
            latencyMs: 12,
            outcome: "ok",
            error: null,
          };
          return { status: "succeeded" as const, result, calls: [call] };
        },
      })),
    };
  };
  return { factory, built, runs, control };
}

const settings = (over: Partial<JudgeSettingsInput>): JudgeSettingsInput => ({
  enabled: true,
  provider: "openai",
  model: "gpt-4.1",
  baseUrl: "http://127.0.0.1:9/v1",
  apiKey: KEY,
  samplingShare: 1,
  dailyBudgetUsd: 100,
  rubric: null,
  kinds: ["mast-checklist", "handoff-preservation"],
  ...over,
});

/** `factory`: the suite factory the worker gets (default the scripted one, `suites`). */
async function setup(
  db: (typeof cases)[number]["db"],
  q: (typeof cases)[number]["q"],
  concurrency = 2,
  factory?: JudgeSuiteFactory,
  config: Partial<WorkerConfig> = {},
) {
  const database = await db.create();
  const { queue, purge } = q.create();
  const recorded = recordingLog();
  const registry = createMetricsRegistry({ processMetrics: false });
  const suites = scriptedSuites();
  const clock = { now: Date.UTC(2026, 0, 15, 12, 0, 0) };
  const worker = createWorker({
    database,
    queue,
    log: recorded.log,
    registry,
    judgeSuites: factory ?? suites.factory,
    secretBox: box,
    now: () => clock.now,
    config: {
      CRUX_WORKER_CONCURRENCY: concurrency,
      CRUX_SWEEP_INTERVAL_MS: 3_600_000,
      CRUX_SWEEP_QUIET_MS: 0,
      CRUX_JUDGE_BUDGET_RECHECK_MS: 50,
      // The local provider runs on this host.
      CRUX_ALLOW_PRIVATE_TARGETS: "loopback",
      ...config,
    },
  });
  await ensureProject(database, PROJECT, PROJECT);
  worker.start();
  const jobs = (name: QueueName, outcome: string) => jobsCounted(registry, name, outcome);
  return {
    database,
    queue,
    recorded,
    suites,
    clock,
    jobs,
    sweeper: worker.sweeper,
    /** Stores a trace and settles it; resolves once its score job completed. */
    async ingest(o: { success?: boolean; saveFails?: boolean }): Promise<string> {
      const spans = reportTrace({
        startMs: clock.now - 60_000,
        ...(o.success === undefined ? {} : { success: o.success }),
        ...(o.saveFails ? { saveFails: true } : {}),
      });
      await insertSpanBatch(database, PROJECT, spans);
      const before = await jobs("trace.score", "completed");
      await queue.enqueue("trace.settle", { projectId: PROJECT, traceId: spans[0]!.traceId }, { delayMs: 0 });
      await until("scored", async () => (await jobs("trace.score", "completed")) > before);
      return spans[0]!.traceId;
    },
    /** One more score job for the trace (a re-score), and the judge job it may start. */
    async rescore(traceId: string): Promise<void> {
      const before = await jobs("trace.score", "completed");
      await queue.enqueue("trace.score", { projectId: PROJECT, traceId }, { delayMs: 0 });
      await until("re-scored", async () => (await jobs("trace.score", "completed")) > before);
    },
    close: () => stopTestWorker({ worker, queue, purge, database }),
  };
}

type Setup = Awaited<ReturnType<typeof setup>>;

async function judgedCompletions(s: Setup, atLeast: number) {
  await until(`${atLeast} judge jobs completed`, async () => (await s.jobs("trace.judge", "completed")) >= atLeast);
}

describe.each(cases)("LLM judges in the worker on $name", ({ db, q }) => {
  it("with no judge configured: no judge job is enqueued, nothing fails, no verdict", async () => {
    const s = await setup(db, q);
    try {
      const failed = await s.ingest({ success: false });
      await s.ingest({ success: true });
      expect(await s.jobs("trace.judge", "completed")).toBe(0);
      expect(await s.jobs("trace.judge", "failed")).toBe(0);
      expect(await s.jobs("trace.score", "failed")).toBe(0);
      expect(await listVerdicts(s.database, PROJECT, failed)).toEqual([]);
      expect(s.suites.built).toEqual([]);

      // A judge job anyway (as POST /traces/:id/judge would enqueue it): it completes, says why at debug level.
      await s.queue.enqueue("trace.judge", { projectId: PROJECT, traceId: failed }, { delayMs: 0 });
      await judgedCompletions(s, 1);
      expect(s.recorded.debugs).toContain("judge: judges are off for the project");
      expect(s.suites.runs).toEqual([]);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("judges every failed trace and the sampled share of the others, with the project's decrypted key; records every call", async () => {
    const s = await setup(db, q);
    try {
      await putJudgeSettings(s.database, PROJECT, settings({ samplingShare: 0 }), box);
      const ok = await s.ingest({ success: true });
      const failed = await s.ingest({ success: false });
      await judgedCompletions(s, 1);
      await until("both verdicts of the failed trace", async () => (await listVerdicts(s.database, PROJECT, failed)).length === 2);
      expect(await listVerdicts(s.database, PROJECT, ok)).toEqual([]);
      expect(s.suites.built).toEqual([{ provider: "openai", model: "gpt-4.1", baseUrl: "http://127.0.0.1:9/v1", apiKey: KEY }]);

      const verdicts = await listVerdicts(s.database, PROJECT, failed);
      expect(verdicts.map((v) => [v.producerId, v.producerVersion, v.model, v.status]).sort()).toEqual([
        ["judge.handoff-preservation", 1, "gpt-4.1", "succeeded"],
        ["judge.mast-checklist", 1, "gpt-4.1", "succeeded"],
      ]);
      // Stored as the suite returned it.
      for (const v of verdicts) expect(v.result).toMatchObject({ kind: v.producerId.slice("judge.".length), model: "gpt-4.1", findings: [] });

      const calls = await listJudgeCalls(s.database, PROJECT, { limit: 50 });
      expect(calls.items).toHaveLength(2);
      expect(calls.items.every((c) => c.traceId === failed && c.costUsd === 0.01 && c.model === "gpt-4.1" && c.outcome === "ok")).toBe(true);
      expect(calls.items[0]!.createdAt.getTime()).toBe(s.clock.now);

      // Share 1: the trace that did not fail is judged on its next score.
      await putJudgeSettings(s.database, PROJECT, settings({ samplingShare: 1 }), box);
      await s.rescore(ok);
      await until("the sampled trace's verdicts", async () => (await listVerdicts(s.database, PROJECT, ok)).length === 2);
      expect(await s.jobs("trace.judge", "failed")).toBe(0);
      expect(JSON.stringify([s.recorded.warnings, s.recorded.debugs])).not.toContain(KEY);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("never pays twice for the same inputs and model; a new model judges again", async () => {
    const s = await setup(db, q);
    try {
      await putJudgeSettings(s.database, PROJECT, settings({}), box);
      const traceId = await s.ingest({ success: false });
      await until("verdicts", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 2);
      await judgedCompletions(s, 1);
      expect(s.suites.runs).toHaveLength(2);

      // A re-score with the same inputs: the judge job runs, finds every verdict current, calls nothing.
      const judged = await s.jobs("trace.judge", "completed");
      await s.rescore(traceId);
      await judgedCompletions(s, judged + 1);
      expect(s.suites.runs).toHaveLength(2);
      expect((await listJudgeCalls(s.database, PROJECT, { limit: 50 })).items).toHaveLength(2);
      expect(s.suites.built).toHaveLength(1); // the suite is cached for unchanged settings

      // Another model: its verdicts are new rows, the old ones kept.
      await putJudgeSettings(s.database, PROJECT, settings({ model: "claude-sonnet-4-5", provider: "anthropic", baseUrl: null }), box);
      await s.rescore(traceId);
      await until("the new model's verdicts", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 4);
      const rows = await listVerdicts(s.database, PROJECT, traceId);
      expect(rows.map((v) => v.model).sort()).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5", "gpt-4.1", "gpt-4.1"]);
      expect(s.suites.built.at(-1)).toEqual({ provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: null, apiKey: KEY });
      expect(s.suites.runs).toHaveLength(4);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("a judge request whose job was lost is run by the sweeper; a deferred one waits with its job, left alone by the sweeper", async () => {
    const s = await setup(db, q, 2, undefined, { CRUX_JUDGE_BUDGET_RECHECK_MS: 60_000 });
    const requestOf = async (traceId: string) => (await getTraceSummary(s.database, PROJECT, traceId))!.judgeRequestedAt;
    try {
      await putJudgeSettings(s.database, PROJECT, settings({}), box);
      const traceId = await s.ingest({ success: false });
      await judgedCompletions(s, 1);
      await until("the judge request answered", async () => (await requestOf(traceId)) === null);
      expect(s.suites.runs.map((r) => r.model)).toEqual(["gpt-4.1", "gpt-4.1"]);

      // A new model, and a judge request recorded as the score stage records it, its job never enqueued (lost with the queue).
      await putJudgeSettings(s.database, PROJECT, settings({ model: "gpt-4.1-mini" }), box);
      expect(await requestJudge(s.database, PROJECT, traceId)).toBeInstanceOf(Date);
      expect(await s.sweeper.sweepOnce()).toBe(1);
      await judgedCompletions(s, 2);
      await until("the swept request answered", async () => (await requestOf(traceId)) === null);
      expect(s.suites.runs.map((r) => r.model)).toEqual(["gpt-4.1", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-mini"]);
      expect(await s.sweeper.sweepOnce()).toBe(0);

      // Over budget ($0.04 spent today): the job defers for the recheck interval and its request moves with it.
      await putJudgeSettings(s.database, PROJECT, settings({ model: "gpt-5", dailyBudgetUsd: 0.01 }), box);
      const deferredBefore = await s.jobs("trace.judge", "deferred");
      await requestJudge(s.database, PROJECT, traceId);
      await s.queue.enqueue("trace.judge", { projectId: PROJECT, traceId }, { delayMs: 0 });
      await until("the judge job deferred", async () => (await s.jobs("trace.judge", "deferred")) > deferredBefore);
      await until("the request moved to the job's return", async () => ((await requestOf(traceId))?.getTime() ?? 0) > Date.now() + 30_000);
      expect(await s.sweeper.sweepOnce()).toBe(0);
      expect(s.suites.runs).toHaveLength(4);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("pauses judge jobs once the daily budget is spent and resumes them the next UTC day; nothing is dropped", async () => {
    const s = await setup(db, q);
    try {
      // Two judges at $0.01 a call: the first trace spends $0.02, past the $0.015 budget.
      await putJudgeSettings(s.database, PROJECT, settings({ dailyBudgetUsd: 0.015 }), box);
      const first = await s.ingest({ success: false });
      await until("the first trace's verdicts", async () => (await listVerdicts(s.database, PROJECT, first)).length === 2);

      const second = await s.ingest({ success: false });
      await until("the second trace's judge job deferred a few times", async () => (await s.jobs("trace.judge", "deferred")) >= 3);
      expect(s.suites.runs).toHaveLength(2);
      expect(await listVerdicts(s.database, PROJECT, second)).toEqual([]);
      expect(await s.jobs("trace.judge", "failed")).toBe(0);

      // The next UTC day: the waiting job runs.
      s.clock.now += DAY;
      await until("the second trace's verdicts", async () => (await listVerdicts(s.database, PROJECT, second)).length === 2);
      expect(s.suites.runs).toHaveLength(4);
      const calls = (await listJudgeCalls(s.database, PROJECT, { traceId: second, limit: 50 })).items;
      expect(calls.map((c) => c.createdAt.getTime())).toEqual([s.clock.now, s.clock.now]);
      expect(await s.jobs("trace.judge", "failed")).toBe(0);
    } finally {
      await s.close();
    }
  }, 60_000);
  it("records the calls of a judge run that failed and was retried; its verdict is stored once", async () => {
    const s = await setup(db, q);
    try {
      await putJudgeSettings(s.database, PROJECT, settings({ kinds: ["mast-checklist"] }), box);
      s.suites.control.failNext = 1;
      const traceId = await s.ingest({ success: false });
      await until("the verdict after the retry", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 1);
      expect(await s.jobs("trace.judge", "retry")).toBe(1);
      const calls = (await listJudgeCalls(s.database, PROJECT, { traceId, limit: 50 })).items;
      expect(calls.map((c) => c.outcome).sort()).toEqual(["ok", "provider_error"]);
      expect(calls.find((c) => c.outcome === "provider_error")!.error).toBe("503 Service Unavailable");
    } finally {
      await s.close();
    }
  }, 60_000);

  it("a judge job enqueued while one of the trace runs is one more run after it, and pays nothing", async () => {
    const s = await setup(db, q, 4);
    try {
      await putJudgeSettings(s.database, PROJECT, settings({ kinds: ["mast-checklist"], samplingShare: 0 }), box);
      const traceId = await s.ingest({ success: true }); // not judged: share 0, not failed
      s.suites.control.delayMs = 500;
      await s.queue.enqueue("trace.judge", { projectId: PROJECT, traceId }, { delayMs: 0 });
      await until("the first judge run started", async () => s.suites.control.started === 1);
      await s.queue.enqueue("trace.judge", { projectId: PROJECT, traceId }, { delayMs: 0 });
      await until("both judge jobs completed", async () => (await s.jobs("trace.judge", "completed")) === 2);
      expect(s.suites.runs).toHaveLength(1);
      expect(await listVerdicts(s.database, PROJECT, traceId)).toHaveLength(1);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("holds the judges to CRUX_JUDGE_RATE_PER_MINUTE per provider endpoint: the run over it is deferred, not failed", async () => {
    const s = await setup(db, q, 2, undefined, { CRUX_JUDGE_RATE_PER_MINUTE: 1 });
    try {
      // Three judges, one run a minute: however the minute falls, one of them waits for the next.
      await putJudgeSettings(s.database, PROJECT, settings({ kinds: ["mast-checklist", "handoff-preservation", "decisive-error-all-at-once"] }), box);
      const traceId = await s.ingest({ success: false });
      await until("a judge job deferred", async () => (await s.jobs("trace.judge", "deferred")) >= 1);
      const verdicts = await listVerdicts(s.database, PROJECT, traceId);
      expect(verdicts.length).toBeGreaterThanOrEqual(1);
      expect(verdicts.length).toBeLessThan(3);
      expect(s.suites.runs).toHaveLength(verdicts.length);
      expect(await s.jobs("trace.judge", "failed")).toBe(0);
      expect(await s.jobs("trace.judge", "retry")).toBe(0);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("grades again when the project's outcome rubric changes, not when it is unchanged (real suite, local provider)", async () => {
    const grade = { success: false, score: 0.3, step: null, evidence: null, explanation: "No source is cited." };
    const mock = await startMockLlmServer(() => ({ text: JSON.stringify(grade), inputTokens: 800, outputTokens: 40 }));
    const s = await setup(db, q, 2, createJudgeSuite);
    try {
      const rubric = (text: string) => settings({ kinds: ["outcome-rubric"], rubric: text, baseUrl: mock.openAiBaseUrl, samplingShare: 1 });
      await putJudgeSettings(s.database, PROJECT, rubric("The report cites its sources."), box);
      const traceId = await s.ingest({}); // no outcome tag: the rubric judge grades it
      await until("the first grade", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 1);
      const [first] = await listVerdicts(s.database, PROJECT, traceId);
      expect(first).toMatchObject({ producerId: "judge.outcome-rubric", status: "succeeded", result: { outcome: { success: false, score: 0.3 } } });
      expect(mock.requests).toHaveLength(1);
      expect(mock.requests[0]!.prompt).toContain("The report cites its sources.");

      // Same rubric, a re-score: the judge job finds the grade current and calls nothing.
      const judged = await s.jobs("trace.judge", "completed");
      await s.rescore(traceId);
      await judgedCompletions(s, judged + 1);
      expect(mock.requests).toHaveLength(1);

      // A new rubric: a new verdict key, graded again against it; the first grade is kept.
      await putJudgeSettings(s.database, PROJECT, rubric("The report is under 500 words."), box);
      await s.rescore(traceId);
      await until("the second grade", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 2);
      expect(mock.requests).toHaveLength(2);
      expect(mock.requests[1]!.prompt).toContain("The report is under 500 words.");
      const rows = await listVerdicts(s.database, PROJECT, traceId);
      expect(new Set(rows.map((v) => v.inputHash)).size).toBe(2);
      expect(await s.jobs("trace.judge", "failed")).toBe(0);
    } finally {
      await s.close();
      await mock.close();
    }
  }, 60_000);
});
