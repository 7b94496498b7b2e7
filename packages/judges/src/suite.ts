/**
 * createJudgeSuite: the judges of one project's model, as the worker runs
 * them. Each judge is a JudgeDefinition (judges/*.ts) run with one provider
 * client and the call policy; its verdict is a JudgeVerdictResult, and every
 * call it made is returned (or carried by the error it throws, callsOf).
 */
import { JudgeKind, JudgeVerdictResult, type JudgeCallRecord, type JudgeModelSettings } from "@crux/contracts";
import type { JudgeInput, MastModeId } from "@crux/core";
import { createAsker, type CallPolicy } from "./call.ts";
import { selfPreferenceWarning } from "./family.ts";
import { decisiveErrorAllAtOnce, decisiveErrorStepByStep } from "./judges/decisive-error.ts";
import { handoffPreservation } from "./judges/handoff-preservation.ts";
import type { JudgeDefinition, JudgeRunInput } from "./judges/judge.ts";
import { mastChecklist } from "./judges/mast-checklist.ts";
import { outcomeRubric } from "./judges/outcome-rubric.ts";
import { createProviderClient } from "./provider.ts";
import { stepViews } from "./steps.ts";

export const judgeDefinitions: Readonly<Record<JudgeKind, JudgeDefinition>> = {
  "mast-checklist": mastChecklist,
  "handoff-preservation": handoffPreservation,
  "decisive-error-all-at-once": decisiveErrorAllAtOnce,
  "decisive-error-step-by-step": decisiveErrorStepByStep,
  "outcome-rubric": outcomeRubric,
};

export interface JudgeSuiteOptions {
  /** Default: all five. */
  kinds?: readonly JudgeKind[];
  /** Per provider call. Default 60 s. */
  timeoutMs?: number;
  /** Calls per prompt, whatever failed (429, 5xx, timeout, invalid reply). Default 3. */
  maxAttempts?: number;
  /** Output allowance of every call. Default 4,096. */
  maxOutputTokens?: number;
  /** The model's context window, in tokens, that a prompt plus its output must fit. Default 32,000. */
  contextTokens?: number;
  /** The project's outcome rubric; the outcome-rubric judge skips (no call) without one. */
  rubric?: string | null;
  fetch?: typeof fetch;
  /** First backoff after a failed call with no retry-after; doubles per attempt. Default 1 s. */
  retryBaseDelayMs?: number;
  /** Longest wait slept inside a run (a longer retry-after is left to the worker's retry, and a shutdown never waits on it). Default 10 s. */
  maxRetryWaitMs?: number;
}

export type JudgeRunResult = {
  status: "succeeded" | "failed";
  result: JudgeVerdictResult | { error: string };
  calls: JudgeCallRecord[];
};

export interface SuiteJudge {
  readonly id: `judge.${JudgeKind}`;
  readonly kind: JudgeKind;
  readonly version: number;
  readonly model: string;
  readonly inputs: readonly JudgeInput[];
  /** The MAST modes it asks about (JudgeDefinition.asksAbout). */
  readonly asksAbout: readonly MastModeId[];
  /** The project settings its verdict depends on besides its inputs (the outcome rubric, for the judge that grades by it); null: none. The worker keys verdicts by it, so a new rubric grades again. */
  readonly settingsKey?: string | null;
  run(input: JudgeRunInput): Promise<JudgeRunResult>;
}

export interface JudgeSuite {
  readonly judges: readonly SuiteJudge[];
}

/** Share of the context kept free of the estimate (tokens are estimated at 4 characters each). */
const CONTEXT_MARGIN = 0.1;

export function createJudgeSuite(settings: JudgeModelSettings, options: JudgeSuiteOptions = {}): JudgeSuite {
  const kinds = options.kinds ?? JudgeKind.options;
  const twice = kinds.filter((k, i) => kinds.indexOf(k) !== i);
  if (twice.length > 0) throw new Error(`judge kinds listed twice: ${twice.join(", ")}`);
  const maxOutputTokens = options.maxOutputTokens ?? 4_096;
  const contextTokens = options.contextTokens ?? 32_000;
  const promptTokens = Math.floor(contextTokens * (1 - CONTEXT_MARGIN)) - maxOutputTokens;
  if (promptTokens < 1_000) throw new Error(`contextTokens ${contextTokens} leaves no room for a prompt after ${maxOutputTokens} output tokens`);
  const policy: CallPolicy = {
    maxAttempts: options.maxAttempts ?? 3,
    maxOutputTokens,
    retryBaseDelayMs: options.retryBaseDelayMs ?? 1_000,
    maxRetryWaitMs: options.maxRetryWaitMs ?? 10_000,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
  const client = createProviderClient(settings, { timeoutMs: options.timeoutMs ?? 60_000, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const rubric = options.rubric ?? null;

  const judgeOf = (def: JudgeDefinition): SuiteJudge => ({
    id: `judge.${def.kind}`,
    kind: def.kind,
    version: def.version,
    model: settings.model,
    inputs: def.inputs,
    asksAbout: def.asksAbout,
    settingsKey: def.readsRubric ? rubric : null,
    async run(input) {
      const calls: JudgeCallRecord[] = [];
      const ask = createAsker({ client, settings, kind: def.kind, promptVersion: def.version, policy, calls });
      const run = await def.run({ input, steps: stepViews(input.trajectories), promptTokens, rubric, ask });
      if (!run.ok) return { status: "failed", result: { error: run.error }, calls };
      const result = JudgeVerdictResult.parse({
        kind: def.kind,
        promptVersion: def.version,
        provider: settings.provider,
        model: settings.model,
        ...run.output,
        askedModes: [...def.asksAbout],
        selfPreferenceWarning: selfPreferenceWarning(settings.model, input.spans),
      });
      return { status: "succeeded", result, calls };
    },
  });
  return { judges: kinds.map((k) => judgeOf(judgeDefinitions[k])) };
}
