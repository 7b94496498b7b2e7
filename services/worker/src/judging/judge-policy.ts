/**
 * When the LLM judges run: only for a project whose judges
 * are on (its settings, else the service default); on every failed trace and
 * on the configured share of the others, decided by trace id so every worker
 * and every retry agrees; and while the project's spend today (UTC) is under
 * its daily budget. A job over budget is deferred (back to the queue, no
 * attempt used) and looks again every `budgetRecheckMs` until the next UTC
 * day or a raised budget lets it run: nothing is dropped.
 *
 * Per provider endpoint (judge-limits.ts): at most `ratePerWindow` runs per
 * window across every worker process (over it: deferred to the next window),
 * and at most `concurrency` runs at once in this process (the rest wait).
 *
 * The settings are read per job as a stamp (version and updated_at; the score
 * stage reads it with the job's state, the judge stage with one primary-key
 * read); the row is resolved, and its sealed key opened, once per stamp, so a
 * PUT is seen by the next job and the score stage's hot path adds no read and
 * no decryption.
 */
import { judgeBudgetDay, judgeSampled } from "@crux/core";
import {
  getJudgeSettingsRow,
  judgeSettingsRowStamp,
  judgeSettingsStamp,
  judgeSpendSince,
  resolveJudgeSettings,
  type Database,
  type JudgeServiceDefaults,
  type ResolvedJudgeSettings,
  type SecretBox,
} from "@crux/db";
import { JobDeferral, type JobQueue } from "@crux/queue";
import { createKeyedSemaphore, judgeEndpointOf } from "./judge-limits.ts";
import type { JudgeProducer } from "./judge-producer.ts";
import { createJudgeSuiteCache, type JudgeFetchFor, type JudgeSuiteFactory, type JudgeSuiteLimits } from "./judge-suite.ts";

export interface JudgePolicyDeps {
  database: Database;
  factory: JudgeSuiteFactory;
  defaults: JudgeServiceDefaults;
  /** Opens the project's stored provider keys; null: none can be read (those projects' judges are off, with the reason). */
  secretBox: SecretBox | null;
  now: () => number;
  /** Longest a job over budget waits before it looks again. */
  budgetRecheckMs: number;
  limits?: JudgeSuiteLimits;
  /** The fetch provider calls go through, by where the settings came from (the operator's or a project's). */
  fetchFor?: JudgeFetchFor;
  /** The limits per provider endpoint. */
  endpoints: {
    /** The queue's rate counter, shared by the worker processes (JobQueue.acquireRate). */
    counter: Pick<JobQueue, "acquireRate">;
    /** Runs per window per endpoint across processes (CRUX_JUDGE_RATE_PER_MINUTE). */
    ratePerWindow: number;
    /** Default one minute; tests shorten it. */
    rateWindowMs?: number;
    /** Runs at once per endpoint in this process (CRUX_JUDGE_CONCURRENCY). */
    concurrency: number;
  };
}

/**
 * The LLM producers of a project, or why there are none. `beforeEach` may throw a JobDeferral
 * (budget reached, endpoint over its rate); `withSlot` runs one judge within the endpoint's
 * concurrency in this process.
 */
export type ProjectJudges =
  { producers: JudgeProducer[]; beforeEach: () => Promise<void>; withSlot: <T>(run: () => Promise<T>) => Promise<T> } | { off: string };

/** Bounded: cleared when full (a project's next job resolves its settings again). */
const maxCachedSettings = 10_000;

export function createJudgePolicy(deps: JudgePolicyDeps) {
  const suites = createJudgeSuiteCache({
    factory: deps.factory,
    database: deps.database,
    now: deps.now,
    ...(deps.limits ? { limits: deps.limits } : {}),
    ...(deps.fetchFor ? { fetchFor: deps.fetchFor } : {}),
  });
  const rate = { max: deps.endpoints.ratePerWindow, windowMs: deps.endpoints.rateWindowMs ?? 60_000 };
  const slots = createKeyedSemaphore(deps.endpoints.concurrency);
  const settings = new Map<string, { stamp: string; resolved: Promise<ResolvedJudgeSettings> }>();

  /** The project's settings as of now: a stamp read, and the row resolved only when its stamp changed. */
  async function settingsOf(projectId: string, knownStamp?: string): Promise<ResolvedJudgeSettings> {
    const stamp = knownStamp ?? (await judgeSettingsStamp(deps.database, projectId));
    const hit = settings.get(projectId);
    if (hit?.stamp === stamp) return hit.resolved;
    if (!hit && settings.size >= maxCachedSettings) settings.clear();
    const row = getJudgeSettingsRow(deps.database, projectId);
    const resolved = row.then((r) => resolveJudgeSettings(r, deps.defaults, deps.secretBox));
    const entry = { stamp, resolved };
    settings.set(projectId, entry);
    // Kept under the row's own stamp: a write between the two reads is then seen by the next job.
    row.then((r) => (entry.stamp = judgeSettingsRowStamp(r))).catch(() => {});
    // A failed read is not kept: the next job reads again.
    resolved.catch(() => {
      if (settings.get(projectId)?.resolved === resolved) settings.delete(projectId);
    });
    return resolved;
  }

  /** Throws JobDeferral while the endpoint has had its runs of the current window (across processes). */
  async function takeRun(endpoint: string): Promise<void> {
    const waitMs = await deps.endpoints.counter.acquireRate(`judge:${endpoint}`, rate);
    if (waitMs === 0) return;
    throw new JobDeferral(
      waitMs,
      `judge endpoint ${endpoint} had its ${rate.max} runs of this ${rate.windowMs / 1000} s window (CRUX_JUDGE_RATE_PER_MINUTE): the job waits ${waitMs} ms`,
    );
  }

  /** Throws JobDeferral while the project's spend today has reached its budget. */
  async function checkBudget(projectId: string, dailyBudgetUsd: number): Promise<void> {
    const now = deps.now();
    const day = judgeBudgetDay(now);
    const spent = await judgeSpendSince(deps.database, projectId, new Date(day.startMs));
    if (spent < dailyBudgetUsd) return;
    throw new JobDeferral(
      Math.max(1, Math.min(day.endMs - now, deps.budgetRecheckMs)),
      `project ${projectId} reached its daily judge budget ($${dailyBudgetUsd}, $${spent.toFixed(4)} spent today): judge jobs wait until ${new Date(day.endMs).toISOString()}`,
    );
  }

  return {
    /** For the score stage: should trace.judge be enqueued for this trace? */
    /** `failed`: the trace has an error span or its outcome is a failure (the score stage knows both before it writes). */
    /** `settingsStamp`: the stamp read with the job's state (readScoreJobState); unset, it is read here. */
    async shouldJudge(projectId: string, traceId: string, failed: boolean, settingsStamp?: string): Promise<boolean> {
      const current = await settingsOf(projectId, settingsStamp);
      if (!current.effective.enabled) return false;
      return failed || judgeSampled(traceId, current.effective.samplingShare);
    },
    /** For the judge stage: the project's judges now (settings may have changed since the enqueue). */
    async forProject(projectId: string): Promise<ProjectJudges> {
      const current = await settingsOf(projectId);
      if (!current.effective.enabled) return { off: current.effective.reason ?? "judges are off" };
      const budget = current.effective.dailyBudgetUsd;
      const endpoint = current.credentials ? judgeEndpointOf(current.credentials) : "none";
      return {
        producers: suites.producersFor(current),
        // The budget first: a job waiting on it takes none of the endpoint's runs.
        beforeEach: async () => {
          await checkBudget(projectId, budget);
          await takeRun(endpoint);
        },
        withSlot: (run) => slots.run(endpoint, run),
      };
    },
  };
}

export type JudgePolicy = ReturnType<typeof createJudgePolicy>;
