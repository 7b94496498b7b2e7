/**
 * The LLM judges as the worker sees them (docs/architecture.md §6): a suite
 * built from a project's judge settings by an injected factory (packages/judges'
 * createJudgeSuite, wired in main.ts), each of its judges adapted to a
 * JudgeProducer keyed by (judge id, prompt version, model, input hash). The
 * adapter records every provider call in judge_calls, those of a failed run
 * too (callsOf: the error carries them). Suites are cached per settings fingerprint, so a settings change
 * builds a new one and an unchanged project reuses its own. The suite's
 * verdicts carry their own self-preference warning (packages/judges).
 */
import type { JudgeKind, JudgeModelSettings } from "@crux/contracts";
import { insertJudgeCalls, type Database, type ResolvedJudgeSettings } from "@crux/db";
import { callsOf, type JudgeRunResult, type JudgeSuite, type JudgeSuiteOptions, type SuiteJudge } from "@crux/judges";
import type { JudgeProducer } from "./judge-producer.ts";

/** packages/judges' createJudgeSuite; tests pass a scripted one of the same shape. */
export type JudgeSuiteFactory = (settings: JudgeModelSettings, options?: JudgeSuiteOptions) => JudgeSuite;

/** The fetch a suite's provider calls use, by the settings' source: the outbound guard, per whose URL it is. */
export type JudgeFetchFor = (source: ResolvedJudgeSettings["effective"]["source"]) => typeof fetch;

/** Limits every suite gets (kinds and rubric come from the project's settings). */
export type JudgeSuiteLimits = Omit<JudgeSuiteOptions, "kinds" | "rubric">;

/** A suite judge as a judge producer: its calls go to judge_calls (stamped with `now`), its result to trace_verdicts. */
function producerOf(judge: SuiteJudge, database: Database, now: () => number): JudgeProducer {
  return {
    id: judge.id,
    version: judge.version,
    model: judge.model,
    inputs: judge.inputs,
    settingsKey: judge.settingsKey ?? null,
    async judge({ projectId, traceId, spans, trajectories, runTags }) {
      let run: JudgeRunResult;
      try {
        run = await judge.run({ spans, trajectories, runTags });
      } catch (err) {
        // Calls that failed before the throw cost money too: recorded, so the budget and /judge-calls see them.
        await insertJudgeCalls(database, projectId, traceId, callsOf(err), new Date(now()));
        throw err;
      }
      await insertJudgeCalls(database, projectId, traceId, run.calls, new Date(now()));
      return { status: run.status, result: run.result };
    },
  };
}

const maxCachedSuites = 500;

export function createJudgeSuiteCache(deps: {
  factory: JudgeSuiteFactory;
  limits?: JudgeSuiteLimits;
  fetchFor?: JudgeFetchFor;
  database: Database;
  now: () => number;
}) {
  const cache = new Map<string, JudgeProducer[]>();
  return {
    /** The producers of the suite for these settings (enabled ones only: credentials set). */
    producersFor(settings: ResolvedJudgeSettings): JudgeProducer[] {
      const credentials = settings.credentials;
      if (credentials === null) return [];
      const key = settings.effective.fingerprint;
      const hit = cache.get(key);
      if (hit) return hit;
      const suite = deps.factory(credentials, {
        ...deps.limits,
        ...(settings.effective.kinds === null ? {} : { kinds: settings.effective.kinds as JudgeKind[] }),
        rubric: settings.effective.rubric,
        ...(deps.fetchFor ? { fetch: deps.fetchFor(settings.effective.source) } : {}),
      });
      const producers = suite.judges.map((j) => producerOf(j, deps.database, deps.now));
      if (cache.size >= maxCachedSuites) cache.clear();
      cache.set(key, producers);
      return producers;
    },
  };
}
