/**
 * The judge stage's limits, with scripted judges on real databases and queues:
 * - the runs per minute of a provider endpoint, counted by the queue (in-process and BullMQ on
 *   Redis): a job over it is deferred, not failed, and runs in the next window;
 * - the runs at once per endpoint in one process: never more than CRUX_JUDGE_CONCURRENCY;
 * - the lease in judge_leases: two processors (two holders, as two processes) judging one trace
 *   pay once; a lease whose holder crashed is taken over once it expires; a failed run releases it;
 * - the project's settings: a write is seen by the next call, the sealed key opened once per version.
 */
import type { JudgeModelSettings, JudgeVerdictResult } from "@crux/contracts";
import { judgeInputHash } from "@crux/core";
import {
  createSecretBox,
  ensureProject,
  getOutcomeOverride,
  getTraceSummary,
  insertSpanBatch,
  listVerdicts,
  putJudgeSettings,
  takeJudgeLease,
  type Database,
  type JudgeSettingsInput,
  type SecretBox,
  judgeSettingsStamp,
  judgeSettingsRowStamp,
  getJudgeSettingsRow,
} from "@crux/db";
import { isJobDeferral, JobDeferral, type JobOutcomeEvent } from "@crux/queue";
import { testDatabases, testQueues } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { frozenSpanSetHash } from "../src/scoring/frozen-span-set.ts";
import { judgeEndpointOf } from "../src/judging/judge-limits.ts";
import type { JudgeProducer } from "../src/judging/judge-producer.ts";
import { createJudgePolicy, type JudgePolicyDeps } from "../src/judging/judge-policy.ts";
import type { JudgeSuiteFactory } from "../src/judging/judge-suite.ts";
import { createJudgeProcessor } from "../src/processors/judge.processor.ts";
import { directStages, recordingLog, reportTrace, until } from "./traces.ts";

const PROJECT = "p-limits";
const box = createSecretBox("a test secret of at least thirty-two characters");
const databases = testDatabases();
/** The rate limit's own tests run on one database; the lease and the settings on each. */
const database0 = databases.at(-1)!;

const settings = (over: Partial<JudgeSettingsInput> = {}): JudgeSettingsInput => ({
  enabled: true,
  provider: "openai",
  model: "gpt-4.1",
  baseUrl: "http://127.0.0.1:9/v1",
  apiKey: "sk-test-provider-key-0002",
  samplingShare: 1,
  dailyBudgetUsd: 100,
  rubric: null,
  kinds: ["mast-checklist"],
  ...over,
});

/** Scripted judges (one per kind) that take `delayMs`, counting runs and the most running at once per base URL. */
function scriptedSuites(delayMs: number) {
  const runs: { baseUrl: string | null; at: number }[] = [];
  const active = new Map<string | null, number>();
  const maxActive = new Map<string | null, number>();
  let activeAll = 0;
  let maxAll = 0;
  const factory: JudgeSuiteFactory = (model: JudgeModelSettings, options) => ({
    judges: (options?.kinds ?? ["mast-checklist"]).map((kind) => ({
      id: `judge.${kind}` as const,
      kind,
      version: 1,
      model: model.model,
      inputs: ["spans"] as const,
      asksAbout: [],
      async run() {
        const url = model.baseUrl ?? null;
        active.set(url, (active.get(url) ?? 0) + 1);
        maxActive.set(url, Math.max(maxActive.get(url) ?? 0, active.get(url)!));
        maxAll = Math.max(maxAll, ++activeAll);
        try {
          await new Promise((r) => setTimeout(r, delayMs));
          runs.push({ baseUrl: url, at: Date.now() });
          const result: JudgeVerdictResult = {
            kind,
            promptVersion: 1,
            provider: model.provider,
            model: model.model,
            findings: [],
            attribution: null,
            outcome: null,
            omitted: [],
            rejected: [],
            selfPreferenceWarning: null,
          };
          return { status: "succeeded" as const, result, calls: [] };
        } finally {
          active.set(url, active.get(url)! - 1);
          activeAll--;
        }
      },
    })),
  });
  return {
    factory,
    runs,
    maxActive,
    get maxAll() {
      return maxAll;
    },
  };
}

/** Stores `n` failed traces of `projectId` and settles and scores them (no judge job: nothing processes the queue). */
async function scoredTraces(database: Database, projectId: string, n: number): Promise<string[]> {
  await ensureProject(database, projectId, projectId);
  const stages = directStages(database);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const spans = reportTrace({ startMs: Date.now() - 60_000 - i * 1_000, success: false });
    await insertSpanBatch(database, projectId, spans);
    await stages.run({ projectId, traceId: spans[0]!.traceId });
    ids.push(spans[0]!.traceId);
  }
  await stages.close();
  return ids;
}

function policyFor(database: Database, factory: JudgeSuiteFactory, endpoints: JudgePolicyDeps["endpoints"], secretBox: SecretBox = box) {
  return createJudgePolicy({
    database,
    factory,
    defaults: { model: null, samplingShare: 1, dailyBudgetUsd: 100 },
    secretBox,
    now: Date.now,
    budgetRecheckMs: 50,
    endpoints,
  });
}

/** Runs `job` until it does not defer (waiting the deferral's delay), counting the deferrals. */
async function runDeferring(job: () => Promise<void>): Promise<number> {
  for (let deferrals = 0; ; deferrals++) {
    try {
      await job();
      return deferrals;
    } catch (err) {
      if (!isJobDeferral(err)) throw err;
      await new Promise((r) => setTimeout(r, err.delayMs));
    }
  }
}

describe.each(testQueues({ queuePrefix: "test-judge-limits" }))("runs per minute per provider endpoint on the $name queue", (q) => {
  it("a judge job over the endpoint's rate is deferred without using an attempt, and runs in the next window; verdicts already stored stay", async () => {
    const database = await database0.create();
    const { queue, purge } = q.create();
    try {
      const windowMs = 1_500;
      const traces = await scoredTraces(database, PROJECT, 2);
      // Two judges per trace, three runs per window: the second trace's second judge waits for the next window.
      await putJudgeSettings(database, PROJECT, settings({ kinds: ["mast-checklist", "handoff-preservation"] }), box);
      const suites = scriptedSuites(5);
      const policy = policyFor(database, suites.factory, { counter: queue, ratePerWindow: 3, rateWindowMs: windowMs, concurrency: 4 });
      const judge = createJudgeProcessor({ database, log: recordingLog().log, producers: [], policy, leaseMs: 60_000 });
      const outcomes: JobOutcomeEvent[] = [];
      queue.start({ "trace.judge": judge }, { concurrency: { "trace.judge": 1 }, onOutcome: (e) => void outcomes.push(e) });
      // Start just after a window begins, so the first three runs share one.
      await new Promise((r) => setTimeout(r, windowMs - (Date.now() % windowMs) + 20));
      await queue.enqueueMany(
        "trace.judge",
        traces.map((traceId) => ({ projectId: PROJECT, traceId })),
        { delayMs: 0 },
      );
      await until("three runs, then a deferral", async () => suites.runs.length === 3 && outcomes.some((e) => e.outcome === "deferred"));
      const firstWindow = Math.floor(suites.runs[0]!.at / windowMs);
      expect(suites.runs.map((r) => Math.floor(r.at / windowMs))).toEqual([firstWindow, firstWindow, firstWindow]);
      // The verdict paid for before the deferral is stored; the job comes back for the missing one only.
      expect((await listVerdicts(database, PROJECT, traces[0]!)).length + (await listVerdicts(database, PROJECT, traces[1]!)).length).toBe(3);
      await until("both judge jobs completed", async () => outcomes.filter((e) => e.outcome === "completed").length === 2, 10_000);
      expect(suites.runs).toHaveLength(4);
      expect(Math.floor(suites.runs[3]!.at / windowMs)).toBeGreaterThan(firstWindow);
      for (const traceId of traces) expect(await listVerdicts(database, PROJECT, traceId)).toHaveLength(2);
      expect(outcomes.filter((e) => e.outcome === "retry" || e.outcome.startsWith("failed"))).toEqual([]);
      expect(outcomes.every((e) => e.attempt === 1)).toBe(true);
    } finally {
      await queue.close(2_000);
      await purge();
      await database.close();
    }
  }, 30_000);
});

describe("runs at once per provider endpoint in one process", () => {
  it("an endpoint is the provider and base URL, without credentials, query or trailing slash", () => {
    expect(judgeEndpointOf({ provider: "openai", baseUrl: "http://127.0.0.1:9/v1/" })).toBe("openai http://127.0.0.1:9/v1");
    expect(judgeEndpointOf({ provider: "openai", baseUrl: "https://user:pw@llm.internal/v1?x=1" })).toBe("openai https://llm.internal/v1");
    expect(judgeEndpointOf({ provider: "anthropic", baseUrl: null })).toBe("anthropic default");
    expect(judgeEndpointOf({ provider: "openai", baseUrl: null })).not.toBe(judgeEndpointOf({ provider: "anthropic", baseUrl: null }));
  });

  it("never more than the concurrency per endpoint; another endpoint has its own", async () => {
    const database = await database0.create();
    const { queue } = testQueues()[0]!.create();
    try {
      const shared = await scoredTraces(database, "p-shared", 4);
      const own = await scoredTraces(database, "p-own", 4);
      await putJudgeSettings(database, "p-shared", settings({ baseUrl: "http://127.0.0.1:9/v1" }), box);
      await putJudgeSettings(database, "p-own", settings({ baseUrl: "http://127.0.0.1:10/v1" }), box);
      const suites = scriptedSuites(150);
      const policy = policyFor(database, suites.factory, { counter: queue, ratePerWindow: 1_000, concurrency: 2 });
      const judge = createJudgeProcessor({ database, log: recordingLog().log, producers: [], policy, leaseMs: 60_000 });
      await Promise.all([
        ...shared.map((traceId) => judge({ projectId: "p-shared", traceId })),
        ...own.map((traceId) => judge({ projectId: "p-own", traceId })),
      ]);
      expect(suites.runs).toHaveLength(8);
      expect(suites.maxActive.get("http://127.0.0.1:9/v1")).toBe(2);
      expect(suites.maxActive.get("http://127.0.0.1:10/v1")).toBe(2);
      // Both endpoints ran at once: 4 in all.
      expect(suites.maxAll).toBe(4);
    } finally {
      await queue.close(0);
      await database.close();
    }
  }, 30_000);
});

describe.each(databases)("one paid run per verdict across processes on $name", (db) => {
  /** A fixed producer that counts its calls; `fail` throws on the next call. */
  function countingProducer(delayMs: number) {
    const state = { calls: 0, fail: 0 };
    const producer: JudgeProducer = {
      id: "count",
      version: 1,
      inputs: ["spans"],
      async judge() {
        state.calls++;
        await new Promise((r) => setTimeout(r, delayMs));
        if (state.fail > 0) {
          state.fail--;
          throw new Error("provider down");
        }
        return { status: "succeeded", result: { calls: state.calls } };
      },
    };
    return { producer, state };
  }

  it("two processors judging one trace at once pay once: the second defers on the lease, then finds the verdict", async () => {
    const database = await db.create();
    try {
      const [traceId] = await scoredTraces(database, PROJECT, 1);
      const { producer, state } = countingProducer(300);
      const log = recordingLog().log;
      const a = createJudgeProcessor({ database, log, producers: [producer], leaseMs: 60_000 });
      const b = createJudgeProcessor({ database, log, producers: [producer], leaseMs: 60_000 });
      const payload = { projectId: PROJECT, traceId: traceId! };
      const results = await Promise.allSettled([a(payload), new Promise((r) => setTimeout(r, 50)).then(() => b(payload))]);
      expect(results[0]!.status).toBe("fulfilled");
      expect(results[1]!.status).toBe("rejected");
      const deferral = (results[1] as PromiseRejectedResult).reason as unknown;
      expect(deferral).toBeInstanceOf(JobDeferral);
      expect((deferral as JobDeferral).message).toMatch(/being run by another worker/);
      expect((deferral as JobDeferral).delayMs).toBeLessThanOrEqual(2_000);
      // The deferred job comes back: the verdict is stored, nothing runs.
      await b(payload);
      expect(state.calls).toBe(1);
      expect(await listVerdicts(database, PROJECT, traceId!)).toHaveLength(1);
      // Both through the deferral loop at once, on a trace of their own: still one call each trace.
      const [other] = await scoredTraces(database, PROJECT, 1);
      const again = { projectId: PROJECT, traceId: other! };
      const deferrals = await Promise.all([runDeferring(() => a(again)), runDeferring(() => b(again))]);
      expect(state.calls).toBe(2);
      expect(deferrals.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(1);
      expect(await listVerdicts(database, PROJECT, other!)).toHaveLength(1);
    } finally {
      await database.close();
    }
  }, 30_000);

  it("a lease whose holder crashed is taken over once it expires; a failed run releases its lease at once", async () => {
    const database = await db.create();
    try {
      const [crashed, failing] = await scoredTraces(database, PROJECT, 2);
      const { producer, state } = countingProducer(10);
      const log = recordingLog().log;
      const a = createJudgeProcessor({ database, log, producers: [producer], leaseMs: 60_000 });
      const b = createJudgeProcessor({ database, log, producers: [producer], leaseMs: 60_000 });
      // A holder that took the lease for 400 ms and never came back.
      const summary = await getTraceSummary(database, PROJECT, crashed!);
      const frozen = await frozenSpanSetHash(database, summary!);
      const inputHash = judgeInputHash(producer.inputs, {
        spanSetHash: frozen!,
        outcomeOverride: await getOutcomeOverride(database, PROJECT, crashed!),
        settings: null,
      });
      const key = { producerId: "count", producerVersion: 1, model: "", inputHash };
      expect(await takeJudgeLease(database, PROJECT, crashed!, key, "crashed-worker", 400)).toEqual({ taken: true });
      const startedAt = Date.now();
      const deferrals = await runDeferring(() => a({ projectId: PROJECT, traceId: crashed! }));
      expect(deferrals).toBeGreaterThanOrEqual(1);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(350);
      expect(state.calls).toBe(1);
      expect(await listVerdicts(database, PROJECT, crashed!)).toHaveLength(1);

      // A run that fails releases its lease: the other processor runs at once, without deferring.
      state.fail = 1;
      await expect(a({ projectId: PROJECT, traceId: failing! })).rejects.toThrow("provider down");
      await b({ projectId: PROJECT, traceId: failing! });
      expect(state.calls).toBe(3);
      expect(await listVerdicts(database, PROJECT, failing!)).toHaveLength(1);
    } finally {
      await database.close();
    }
  }, 30_000);

  it("sees a settings write at the next call and opens the sealed key once per version", async () => {
    const database = await db.create();
    try {
      let opens = 0;
      const counting: SecretBox = { seal: (v) => box.seal(v), open: (v) => (opens++, box.open(v)) };
      const suites = scriptedSuites(1);
      const { queue } = testQueues()[0]!.create();
      const policy = policyFor(database, suites.factory, { counter: queue, ratePerWindow: 60, concurrency: 4 }, counting);
      const ok = "1".repeat(32);
      await putJudgeSettings(database, PROJECT, settings({ samplingShare: 0 }), box);
      for (let i = 0; i < 5; i++) expect(await policy.shouldJudge(PROJECT, ok, false)).toBe(false);
      expect(await policy.shouldJudge(PROJECT, ok, true)).toBe(true);
      expect("producers" in (await policy.forProject(PROJECT))).toBe(true);
      expect(opens).toBe(1);

      await putJudgeSettings(database, PROJECT, settings({ samplingShare: 1 }), box);
      expect(await policy.shouldJudge(PROJECT, ok, false)).toBe(true);
      expect(await policy.shouldJudge(PROJECT, ok, false)).toBe(true);
      expect(opens).toBe(2);

      // The score stage passes the stamp read with its job state (readScoreJobState's SQL, the same value as a row read).
      const stamp = await judgeSettingsStamp(database, PROJECT);
      expect(stamp).toBe(judgeSettingsRowStamp(await getJudgeSettingsRow(database, PROJECT)));
      expect(await policy.shouldJudge(PROJECT, ok, false, stamp)).toBe(true);
      await putJudgeSettings(database, PROJECT, settings({ enabled: false }), box);
      const next = await judgeSettingsStamp(database, PROJECT);
      expect(next).not.toBe(stamp);
      expect(next).toBe(judgeSettingsRowStamp(await getJudgeSettingsRow(database, PROJECT)));
      // A stamp the cache holds answers from the cache (the stale one gives the old settings), the new one reads the change.
      expect(await policy.shouldJudge(PROJECT, ok, false, stamp)).toBe(true);
      expect(await policy.shouldJudge(PROJECT, ok, true, next)).toBe(false);
      expect(await policy.forProject(PROJECT)).toEqual({ off: expect.stringMatching(/switched off/) });
      // A project without a row: no key to open, judges off (no service default).
      expect(await policy.shouldJudge("p-none", ok, true)).toBe(false);
      expect(opens).toBe(3);
      await queue.close(0);
    } finally {
      await database.close();
    }
  }, 30_000);
});
