/**
 * LLM judges: what a judge verdict stores (trace_verdicts.result) and what
 * every provider call records (judge_calls). packages/judges produces these,
 * the worker stores them, the API serves them; one shape everywhere.
 */
import { z } from "zod";

export const JudgeProvider = z.enum(["anthropic", "openai"]);
export type JudgeProvider = z.infer<typeof JudgeProvider>;

/** The judges Crux ships; a producer id is `judge.<kind>`. */
export const JudgeKind = z.enum(["mast-checklist", "handoff-preservation", "decisive-error-all-at-once", "decisive-error-step-by-step", "outcome-rubric"]);
export type JudgeKind = z.infer<typeof JudgeKind>;

const MastMode = z.string().regex(/^FM-[123]\.[1-6]$/);

/** One failure mode a judge found, citing a step of the numbered trajectory it was shown. */
export const JudgeFinding = z.object({
  mode: MastMode,
  agent: z.string().nullable(),
  spanId: z.string(),
  /** Global step index (TraceTrajectories.steps). */
  stepIndex: z.number().int().nonnegative(),
  /** Verbatim text from that step (checked against it before the finding is kept). */
  evidence: z.string(),
  explanation: z.string(),
  confidence: z.number().min(0).max(1),
});
export type JudgeFinding = z.infer<typeof JudgeFinding>;

/** A judge's pick of the decisive error; `method` names how it was reached. */
export const JudgeAttribution = z.object({
  method: z.enum(["all-at-once", "step-by-step"]),
  agent: z.string().nullable(),
  spanId: z.string().nullable(),
  stepIndex: z.number().int().nonnegative().nullable(),
  explanation: z.string(),
  /** What the decisive step should have done and why the run would then have succeeded; absent on verdicts stored before it existed. */
  counterfactual: z.string().optional(),
});
export type JudgeAttribution = z.infer<typeof JudgeAttribution>;

/** What a judge stored for one trace (trace_verdicts.result when status is "succeeded"). */
export const JudgeVerdictResult = z.object({
  kind: JudgeKind,
  promptVersion: z.number().int().positive(),
  provider: JudgeProvider,
  model: z.string(),
  findings: z.array(JudgeFinding),
  /**
   * The MAST modes the judge asked about (declared by the judge): validation and the judge-only
   * rates count it for these modes only. Absent on verdicts stored before it existed.
   */
  askedModes: z.array(MastMode).optional(),
  attribution: JudgeAttribution.nullable(),
  /** Outcome rubric only: the graded end state, applied as a run tag with source judge. */
  outcome: z.object({ success: z.boolean(), score: z.number().min(0).max(1).nullable(), explanation: z.string() }).nullable(),
  /** What did not fit the model's context ("steps 12-40 summarized"); empty when the judge saw everything. */
  omitted: z.array(z.string()),
  /** Citations the judge made that did not hold (no such step, quote not in the step): rejected, listed here. */
  rejected: z.array(z.object({ mode: z.string(), stepIndex: z.number().nullable(), reason: z.string() })),
  /** Set when the judge's model family is one the trace's agents use. */
  selfPreferenceWarning: z.string().nullable(),
  /**
   * Set when the judge made no call because there was nothing for it to judge (no rubric, an outcome
   * already reported, no handoff message captured, a run that succeeded): findings are then empty and
   * say nothing about the trace, so validation must not count them as "mode absent". Absent on verdicts
   * stored before the field existed.
   */
  skipped: z.string().nullable().optional(),
});
export type JudgeVerdictResult = z.infer<typeof JudgeVerdictResult>;

/** One provider call, success or not (judge_calls row; GET /judge-calls item). */
export const JudgeCallRecord = z.object({
  kind: JudgeKind,
  promptVersion: z.number().int().positive(),
  provider: JudgeProvider,
  model: z.string(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** From the price table; null when the model has no price. */
  costUsd: z.number().nonnegative().nullable(),
  latencyMs: z.number().nonnegative(),
  /** ok; invalid_reply (unparseable or failed validation); rate_limited; timeout; provider_error. */
  outcome: z.enum(["ok", "invalid_reply", "rate_limited", "timeout", "provider_error"]),
  error: z.string().nullable(),
});
export type JudgeCallRecord = z.infer<typeof JudgeCallRecord>;

/** The model a project's judges call (decrypted; never serialized to a response or a log). */
export interface JudgeModelSettings {
  provider: JudgeProvider;
  model: string;
  /** null: the provider's public endpoint. */
  baseUrl: string | null;
  apiKey: string;
}
