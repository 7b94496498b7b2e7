/**
 * When the LLM judges run (issue 11 policy): only for a project whose judges
 * are on (its settings, else the service default); on every failed trace and
 * on the configured share of the others, decided by trace id so every worker
 * and every retry agrees; and while the project's spend today (UTC) is under
 * its daily budget. A job over budget is deferred (back to the queue, no
 * attempt used) and looks again every `budgetRecheckMs` until the next UTC
 * day or a raised budget lets it run: nothing is dropped.
 */
import { judgeBudgetDay, judgeSampled } from "@crux/core";
import { judgeSpendSince, readJudgeSettings, traceFailed, type Database, type JudgeServiceDefaults, type SecretBox } from "@crux/db";
import { JobDeferral } from "@crux/queue";
import type { JudgeProducer } from "./judge-producer.ts";
import { createJudgeSuiteCache, type JudgeSuiteFactory, type JudgeSuiteLimits } from "./judge-suite.ts";

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
}

/** The LLM producers of a project, or why there are none. */
export type ProjectJudges = { producers: JudgeProducer[]; beforeEach: () => Promise<void> } | { off: string };

export function createJudgePolicy(deps: JudgePolicyDeps) {
  const suites = createJudgeSuiteCache({ factory: deps.factory, database: deps.database, now: deps.now, ...(deps.limits ? { limits: deps.limits } : {}) });
  const settingsOf = (projectId: string) => readJudgeSettings(deps.database, projectId, deps.defaults, deps.secretBox);

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
    async shouldJudge(projectId: string, traceId: string): Promise<boolean> {
      const settings = await settingsOf(projectId);
      if (!settings.effective.enabled) return false;
      if (await traceFailed(deps.database, projectId, traceId)) return true;
      return judgeSampled(traceId, settings.effective.samplingShare);
    },
    /** For the judge stage: the project's judges now (settings may have changed since the enqueue). */
    async forProject(projectId: string): Promise<ProjectJudges> {
      const settings = await settingsOf(projectId);
      if (!settings.effective.enabled) return { off: settings.effective.reason ?? "judges are off" };
      const budget = settings.effective.dailyBudgetUsd;
      return { producers: suites.producersFor(settings), beforeEach: () => checkBudget(projectId, budget) };
    },
  };
}

export type JudgePolicy = ReturnType<typeof createJudgePolicy>;
