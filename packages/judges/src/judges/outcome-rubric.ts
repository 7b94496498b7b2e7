/**
 * Outcome rubric (docs/judges.md §2.4): when the tracer reported no outcome,
 * grade the run's end state against the project's rubric. The result becomes
 * a run tag with source judge (the service applies it). No rubric, or an
 * outcome already known: skipped, no call.
 */
import { z } from "zod";
import { checkCitation } from "../citations.ts";
import { cut, FIELD_CHARS } from "../window.ts";
import { looseText, quote, rejection, skip, stepNumber, stepsSection, SYSTEM_RULES, taskSection, type JudgeDefinition } from "./judge.ts";

const Grade = z.object({ success: z.boolean(), score: z.number().min(0).max(1).nullish(), explanation: looseText, step: stepNumber, evidence: quote });

/** The final steps a grade reads first: always shown in full. */
const END_STEPS = 3;

export const outcomeRubric: JudgeDefinition = {
  kind: "outcome-rubric",
  version: 1,
  inputs: ["spans", "outcome"],
  // It grades the outcome, not a mode: its grade is validated apart.
  asksAbout: [],
  readsRubric: true,
  async run(ctx) {
    if (ctx.rubric === null || ctx.rubric.trim() === "") return skip("no outcome rubric configured for the project");
    const tags = ctx.input.runTags;
    if (tags.success !== null) return skip(`the outcome is known (${tags.sources.success}): nothing to grade`);
    const t = ctx.input.trajectories;
    const root = t.rootSpanId === null ? undefined : t.spanById.get(t.rootSpanId);
    const final = root?.content.text().output ?? null;
    const task = taskSection(t, tags);
    const tail = `Grade the run's end state against this rubric:\n${cut(ctx.rubric, FIELD_CHARS * 2).text}\n\nFinal output of the run: ${final === null ? "(not captured)" : cut(final, FIELD_CHARS).text}\n\nDecide whether the run succeeded by the rubric, give a score from 0 to 1 when the rubric allows a partial grade (else null), and cite the step that shows the end state best.\n\nReply shape:\n{"success": true or false, "score": <0 to 1> or null, "step": <step number> or null, "evidence": "<verbatim quote of that step>", "explanation": "<one or two sentences>"}`;
    const firstEnd = ctx.steps.length - END_STEPS;
    const steps = stepsSection(ctx, `${task}\n${tail}`, (i) => i >= firstEnd);
    const reply = await ctx.ask({ system: SYSTEM_RULES, user: `${task}\n\nTrajectory:\n${steps.text}\n\n${tail}` }, Grade);
    if (!reply.ok) return reply;
    const g = reply.value;
    const rejected = [];
    if (g.step !== null && g.step !== undefined) {
      const check = checkCitation(ctx.steps, g.step, g.evidence ?? null);
      if (!check.ok) rejected.push(rejection("outcome", g.step, check.reason));
    }
    const outcome = { success: g.success, score: g.score ?? null, explanation: g.explanation };
    return { ok: true, output: { findings: [], attribution: null, outcome, omitted: steps.omitted, rejected, skipped: null } };
  },
};
