/**
 * The LLM judges as the worker sees them (docs/architecture.md §6): a suite
 * built from a project's judge settings by an injected factory (packages/judges'
 * createJudgeSuite, wired in main.ts), each of its judges adapted to a
 * JudgeProducer keyed by (judge id, prompt version, model, input hash). The
 * adapter records every provider call in judge_calls and adds the
 * self-preference warning when the judge's model family is one the trace's
 * agents use. Suites are cached per settings fingerprint, so a settings change
 * builds a new one and an unchanged project reuses its own.
 */
import { selfPreferenceWarning, type NormalizedSpan, type RunTagsResult, type TraceTrajectories } from "@crux/core";
import type { JudgeCallRecord, JudgeKind, JudgeModelSettings, JudgeVerdictResult } from "@crux/contracts";
import { insertJudgeCalls, type Database, type ResolvedJudgeSettings } from "@crux/db";
import type { JudgeProducer } from "./judge-producer.ts";

export interface SuiteJudgeInput {
  spans: NormalizedSpan[];
  trajectories: TraceTrajectories;
  runTags: RunTagsResult;
}

export interface SuiteJudgeRun {
  status: "succeeded" | "failed";
  result: JudgeVerdictResult | { error: string };
  /** Every provider call the run made, failed ones included. */
  calls: JudgeCallRecord[];
}

/**
 * One judge of a suite. A retryable provider failure throws a plain Error; a permanent one a
 * PermanentError. A thrown error may carry the calls made before it (`calls`), so they still count.
 */
export interface SuiteJudge {
  readonly id: `judge.${JudgeKind}`;
  readonly kind: JudgeKind;
  /** The prompt's version: a new prompt judges every trace again. */
  readonly version: number;
  readonly model: string;
  readonly inputs: readonly ("spans" | "outcome")[];
  run(input: SuiteJudgeInput): Promise<SuiteJudgeRun>;
}

export interface JudgeSuite {
  readonly judges: readonly SuiteJudge[];
}

export interface JudgeSuiteOptions {
  kinds?: readonly JudgeKind[];
  timeoutMs?: number;
  maxAttempts?: number;
  maxOutputTokens?: number;
  contextTokens?: number;
  rubric?: string | null;
  fetch?: typeof fetch;
}

/** packages/judges' createJudgeSuite has this shape. */
export type JudgeSuiteFactory = (settings: JudgeModelSettings, options?: JudgeSuiteOptions) => JudgeSuite;

/** Limits every suite gets (kinds and rubric come from the project's settings). */
export type JudgeSuiteLimits = Omit<JudgeSuiteOptions, "kinds" | "rubric">;

function withWarning(result: SuiteJudgeRun["result"], judgeModel: string, spans: readonly NormalizedSpan[]): unknown {
  if (!("findings" in result) || result.selfPreferenceWarning !== null) return result;
  const models = spans.flatMap((s) => (s.model === null ? [] : [s.model]));
  return { ...result, selfPreferenceWarning: selfPreferenceWarning(judgeModel, models) };
}

function callsOf(err: unknown): JudgeCallRecord[] {
  const calls = err !== null && typeof err === "object" ? (err as { calls?: unknown }).calls : undefined;
  return Array.isArray(calls) ? (calls as JudgeCallRecord[]) : [];
}

/** A suite judge as a judge producer: its calls go to judge_calls (stamped with `now`), its result to trace_verdicts. */
function producerOf(judge: SuiteJudge, database: Database, now: () => number): JudgeProducer {
  return {
    id: judge.id,
    version: judge.version,
    model: judge.model,
    inputs: judge.inputs,
    async judge({ projectId, traceId, spans, trajectories, runTags }) {
      let run: SuiteJudgeRun;
      try {
        run = await judge.run({ spans, trajectories, runTags });
      } catch (err) {
        // Calls that failed before the throw cost money too: recorded, so the budget and /judge-calls see them.
        await insertJudgeCalls(database, projectId, traceId, callsOf(err), new Date(now()));
        throw err;
      }
      await insertJudgeCalls(database, projectId, traceId, run.calls, new Date(now()));
      return { status: run.status, result: withWarning(run.result, judge.model, spans) };
    },
  };
}

const maxCachedSuites = 500;

export function createJudgeSuiteCache(deps: { factory: JudgeSuiteFactory; limits?: JudgeSuiteLimits; database: Database; now: () => number }) {
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
      });
      const producers = suite.judges.map((j) => producerOf(j, deps.database, deps.now));
      if (cache.size >= maxCachedSuites) cache.clear();
      cache.set(key, producers);
      return producers;
    },
  };
}
