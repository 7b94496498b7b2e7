/**
 * What every judge is: a kind, a prompt version, the inputs its verdict
 * depends on, and a run over the trace that asks the model through `ask`
 * (the only way out). Shared prompt parts live here, so the judges' prompts
 * have one shape (docs/judges.md §2).
 */
import type { JudgeAttribution, JudgeFinding, JudgeKind, JudgeVerdictResult } from "@crux/contracts";
import type { JudgeInput, MastModeId, NormalizedSpan, RunTagsResult, TraceTrajectories } from "@crux/core";
import { z } from "zod";
import type { Ask } from "../call.ts";
import type { StepView } from "../steps.ts";
import { cut, estimateTokens, windowSteps, type WindowedSteps } from "../window.ts";

export interface JudgeRunInput {
  spans: NormalizedSpan[];
  trajectories: TraceTrajectories;
  runTags: RunTagsResult;
}

export interface JudgeContext {
  input: JudgeRunInput;
  steps: StepView[];
  /** Tokens the whole prompt may take (context less the output allowance and a margin). */
  promptTokens: number;
  rubric: string | null;
  ask: Ask;
}

export interface JudgeOutput {
  findings: JudgeFinding[];
  attribution: JudgeAttribution | null;
  outcome: JudgeVerdictResult["outcome"];
  omitted: string[];
  rejected: JudgeVerdictResult["rejected"];
  skipped: string | null;
}

export type JudgeRun = { ok: true; output: JudgeOutput } | { ok: false; error: string };

export interface JudgeDefinition {
  kind: JudgeKind;
  /** The prompt's version: bump when the prompt or the reading of its reply changes. */
  version: number;
  inputs: readonly JudgeInput[];
  /**
   * The MAST modes the judge asks about, declared here and nowhere else: its verdicts carry the
   * list (JudgeVerdictResult.askedModes), and validation and the judge-only rates count a judge
   * for a mode only when it asked. Empty for a judge that names no mode (its attribution or
   * outcome is validated apart).
   */
  asksAbout: readonly MastModeId[];
  /** Grades by the project's outcome rubric: a changed rubric must judge again (the suite keys its verdicts by it). */
  readsRubric?: boolean;
  run(ctx: JudgeContext): Promise<JudgeRun>;
}

const emptyOutput = (): JudgeOutput => ({ findings: [], attribution: null, outcome: null, omitted: [], rejected: [], skipped: null });

export const skip = (reason: string): JudgeRun => ({ ok: true, output: { ...emptyOutput(), skipped: reason } });

const GOAL_CHARS = 6_000;

export const SYSTEM_RULES = [
  "You review one run of a multi-agent LLM system, from its trace.",
  "Judge only from what the trace shows. Steps are numbered in square brackets, [n], in the order they started; each names the agent that took it.",
  "When you cite a step, give its number and quote its text word for word (copy the exact words, from the step you cite, from its received, input, args, message or output text).",
  "Cite the earliest step where what you report shows.",
  "Reply with one JSON object only, in the shape asked for; no text before or after it.",
].join("\n");

function outcomeLine(tags: RunTagsResult): string {
  if (tags.success === true) return "Reported outcome: the run succeeded.";
  if (tags.success === false) return "Reported outcome: the run failed.";
  return "Reported outcome: none (not known whether the run succeeded).";
}

/** The task section every prompt opens with. */
export function taskSection(t: TraceTrajectories, tags: RunTagsResult): string {
  const goal = t.goal === null ? "(not captured)" : cut(t.goal, GOAL_CHARS).text;
  const agents = t.agents.map((a) => a.name).join(", ") || "(none named)";
  return `Task request:\n${goal}\n\nAgents: ${agents}\n${outcomeLine(tags)}`;
}

/** The steps, windowed to what is left of the prompt budget once `fixed` (everything else in the prompt) is counted. */
export function stepsSection(ctx: JudgeContext, fixed: string, protect?: (index: number) => boolean): WindowedSteps {
  const left = Math.max(0, ctx.promptTokens - estimateTokens(SYSTEM_RULES) - estimateTokens(fixed));
  return windowSteps(ctx.steps, left, protect);
}

/** Either a step the trace has, or a reason to reject the citation. */
export const rejection = (mode: string, stepIndex: number | null, reason: string) => ({ mode, stepIndex, reason });

/*
 * Reply fields, lenient where models commonly vary and the meaning is plain ("Yes", "[4]", a null
 * explanation), strict everywhere else: anything that does not parse is an invalid reply.
 */
export const yesNo = z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(["yes", "no"]));
export const stepNumber = z.preprocess(
  (v) => (typeof v === "string" && /^\s*\[?\d+\]?\s*$/.test(v) ? Number(v.replace(/\D/g, "")) : v),
  z.number().int().nullable().optional(),
);
export const looseText = z
  .string()
  .nullish()
  .transform((v) => v ?? "");
export const quote = z.string().nullish();
export const confidence = z
  .number()
  .min(0)
  .max(1)
  .nullish()
  .transform((v) => v ?? 0.5);
