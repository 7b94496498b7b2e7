/**
 * MAST checklist (docs/judges.md §2.1): one narrow yes/no question per
 * failure mode, asked over the numbered trajectory in one prompt. A "yes"
 * must cite the earliest step it shows at and quote that step; a citation
 * that does not hold goes to `rejected`, never to the findings.
 */
import type { JudgeFinding } from "@crux/contracts";
import { mastModeIds, type MastModeId } from "@crux/core";
import { z } from "zod";
import { checkCitation } from "../citations.ts";
import { confidence, looseText, quote, rejection, stepNumber, stepsSection, SYSTEM_RULES, taskSection, yesNo, type JudgeDefinition } from "./judge.ts";

/** The question per mode (docs/failure-modes.md §1), each answerable from the trace alone. */
const MAST_QUESTIONS: Readonly<Record<MastModeId, string>> = {
  "FM-1.1": "Does an agent's output break a requirement the task states (scope, format, limits, constraints), or the interface it must follow?",
  "FM-1.2": "Does an agent act outside its role (a reviewer that writes the result, a planner that executes)?",
  "FM-1.3": "Does an agent repeat a step it already took, gaining nothing new?",
  "FM-1.4": "Does an agent act as if it lost earlier context, working from an earlier state or forgetting what was established?",
  "FM-1.5": "Does the run not know when to stop: looping without progress, or ending only on a limit?",
  "FM-2.1": "Does a conversation restart, losing what had been established?",
  "FM-2.2": "Does an agent go ahead on an ambiguous or underspecified request where it should have asked for clarification?",
  "FM-2.3": "Does the work drift away from the task's goal?",
  "FM-2.4": "Does an agent not pass on information (a constraint, a fact, a result) another agent needed?",
  "FM-2.5": "Does an agent ignore input another agent gave it?",
  "FM-2.6": "Does an agent say it will do one thing and then do another?",
  "FM-3.1": "Does the run stop by its own decision before the task is done?",
  "FM-3.2": "Is the final result left unchecked, or checked only in part (a check that does not examine what the task requires)?",
  "FM-3.3": "Does a check approve a result that is wrong or breaks the task's requirements?",
};
const MODES: readonly string[] = mastModeIds;

const Answer = z.object({ mode: z.string(), answer: yesNo, step: stepNumber, evidence: quote, explanation: looseText, confidence });
const Reply = z.object({ answers: z.array(Answer) }).superRefine((reply, ctx) => {
  const seen = reply.answers.map((a) => a.mode);
  const missing = MODES.filter((m) => !seen.includes(m));
  const unknown = seen.filter((m) => !MODES.includes(m));
  const twice = seen.filter((m, i) => seen.indexOf(m) !== i);
  if (missing.length > 0) ctx.addIssue({ code: "custom", message: `answers missing for ${missing.join(", ")}` });
  if (unknown.length > 0) ctx.addIssue({ code: "custom", message: `unknown modes ${unknown.join(", ")}` });
  if (twice.length > 0) ctx.addIssue({ code: "custom", message: `modes answered twice: ${twice.join(", ")}` });
});

const SHAPE = `{"answers": [{"mode": "FM-1.1", "answer": "yes" or "no", "step": <step number, for yes>, "evidence": "<verbatim quote of that step, for yes>", "explanation": "<one sentence>", "confidence": <0 to 1>}, ... one entry per question]}`;

export const mastChecklist: JudgeDefinition = {
  kind: "mast-checklist",
  version: 1,
  inputs: ["spans", "outcome"],
  asksAbout: mastModeIds,
  async run(ctx) {
    const task = taskSection(ctx.input.trajectories, ctx.input.runTags);
    const questions = mastModeIds.map((m) => `${m}: ${MAST_QUESTIONS[m]}`).join("\n");
    const tail = `Answer every question below with "yes" or "no". Answer "yes" only when a step shows it; then cite the earliest such step and quote it.\n\n${questions}\n\nReply shape:\n${SHAPE}`;
    const steps = stepsSection(ctx, `${task}\n${tail}`);
    const reply = await ctx.ask({ system: SYSTEM_RULES, user: `${task}\n\nTrajectory:\n${steps.text}\n\n${tail}` }, Reply);
    if (!reply.ok) return reply;
    const findings: JudgeFinding[] = [];
    const rejected = [];
    for (const a of reply.value.answers) {
      if (a.answer === "no") continue;
      const check = checkCitation(ctx.steps, a.step ?? null, a.evidence ?? null);
      if (!check.ok) {
        rejected.push(rejection(a.mode, a.step ?? null, check.reason));
        continue;
      }
      findings.push({
        mode: a.mode,
        agent: check.step.agent,
        spanId: check.step.spanId,
        stepIndex: check.step.index,
        evidence: a.evidence!,
        explanation: a.explanation,
        confidence: a.confidence,
      });
    }
    findings.sort((x, y) => x.stepIndex - y.stepIndex || x.mode.localeCompare(y.mode));
    return { ok: true, output: { findings, attribution: null, outcome: null, omitted: steps.omitted, rejected, skipped: null } };
  },
};
