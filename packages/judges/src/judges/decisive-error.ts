/**
 * Decisive error, two ways (docs/judges.md §2.3), after Who&When (Zhang et
 * al., 2025): all-at-once shows the whole log and asks for the agent and the
 * step that made the failure inevitable (better at the agent); step-by-step
 * walks the steps in windows of STEP_WINDOW, each prompt holding the history
 * so far, and stops at the first window where the model names a decisive
 * step (better at the step). A run reported as succeeded is skipped.
 * Both use the abduction scaffold (ECHO/A2P-style reasoning for failure
 * attribution): what went wrong (abduction), the action that caused it, and
 * the prediction that the run would have succeeded had that action been
 * right; the counterfactual is stored in the verdict. They also say that an
 * agent which only runs others' code is not the author of the error its
 * output shows, and that a plan or instruction others faithfully followed
 * can be the decisive step.
 */
import type { JudgeAttribution } from "@crux/contracts";
import { z } from "zod";
import { checkCitation } from "../citations.ts";
import {
  looseText,
  quote,
  rejection,
  skip,
  stepNumber,
  stepsSection,
  SYSTEM_RULES,
  taskSection,
  type JudgeContext,
  type JudgeDefinition,
  type JudgeRun,
} from "./judge.ts";

const STEP_WINDOW = 10;

const WHAT =
  "The decisive error is the step whose mistake made the run's failure inevitable: had that step been right, the run would have succeeded. It is often earlier than where the failure shows.";

/** The abduction scaffold and the causes that are easy to miss: the reasoning asked for before the answer. */
const REASON = [
  "Reason in three parts before you answer:",
  "1. Abduction: what went wrong? State the failure and the most likely cause that explains everything after it.",
  "2. Action: which step's action caused it? Walk back from where the failure shows to the earliest step that introduced what it depends on (a wrong value, claim, plan item or instruction). An agent that only runs code or tools another agent wrote and reports the output (exit codes, tracebacks, results) is not the author of an error that output shows: name the step that wrote the code or the request. A plan or instruction that later agents faithfully followed can be the decisive step.",
  "3. Prediction: had that step been right (say how), would the run have succeeded? If not, the decisive step is elsewhere: go back to 1.",
].join("\n");

/**
 * `step` must be there (a number, or null for "none"): an empty or meaningless reply ({}) is
 * invalid and asked again, never read as "no decisive error".
 */
const Decision = z
  .object({ step: stepNumber, agent: z.string().nullish(), evidence: quote, explanation: looseText })
  .superRefine((d, ctx) => {
    if (d.step === undefined)
      ctx.addIssue({ code: "custom", path: ["step"], message: "step is missing: give the step number, or null when no step is decisive" });
  })
  .transform((d) => ({ ...d, step: d.step ?? null }));

/** The abduction scaffold's parts of a reply; optional so a reply without them still reads. */
const Abduction = z.object({ failure: looseText, counterfactual: looseText });
const Reply = z.intersection(Decision, Abduction);
const counterfactualOf = (d: { counterfactual: string }): { counterfactual?: string } =>
  d.counterfactual.trim() === "" ? {} : { counterfactual: d.counterfactual };

/** Both methods: version 2 (the abduction scaffold), the outcome an input, a run that succeeded (or has no step) skipped. */
function decisiveJudge(kind: JudgeDefinition["kind"], find: (ctx: JudgeContext, task: string) => Promise<JudgeRun>): JudgeDefinition {
  return {
    kind,
    version: 2,
    inputs: ["spans", "outcome"],
    // It names the decisive step, not a mode: its attribution is validated apart.
    asksAbout: [],
    async run(ctx) {
      if (ctx.input.runTags.success === true) return skip("the run succeeded: there is no decisive error to find");
      if (ctx.steps.length === 0) return skip("the trace has no steps");
      return find(ctx, taskSection(ctx.input.trajectories, ctx.input.runTags));
    },
  };
}

export const decisiveErrorAllAtOnce = decisiveJudge("decisive-error-all-at-once", async (ctx, task) => {
  const tail = `${WHAT}\nRead the whole trajectory, then name the agent that made the decisive error and its step, quoting the step. If the run did not fail, answer with step null and agent null.\n${REASON}\n\nReply shape:\n{"failure": "<what went wrong>", "agent": "<agent name>" or null, "step": <step number> or null, "evidence": "<verbatim quote of that step>", "counterfactual": "<what that step should have done, and why the run would then have succeeded>", "explanation": "<one or two sentences>"}`;
  const steps = stepsSection(ctx, `${task}\n${tail}`);
  const reply = await ctx.ask({ system: SYSTEM_RULES, user: `${task}\n\nTrajectory:\n${steps.text}\n\n${tail}` }, Reply);
  if (!reply.ok) return reply;
  const d = reply.value;
  const rejected = [];
  const agents = new Set(ctx.input.trajectories.agents.map((a) => a.name));
  let agent = d.agent ?? null;
  if (agent !== null && !agents.has(agent)) {
    rejected.push(rejection("decisive-error", d.step, `agent ${JSON.stringify(agent)} is not an agent of the trace`));
    agent = null;
  }
  let attribution: JudgeAttribution | null = null;
  if (d.step !== null) {
    const check = checkCitation(ctx.steps, d.step, d.evidence ?? null);
    if (check.ok)
      attribution = {
        method: "all-at-once",
        agent: agent ?? check.step.agent,
        spanId: check.step.spanId,
        stepIndex: check.step.index,
        explanation: d.explanation,
        ...counterfactualOf(d),
      };
    else rejected.push(rejection("decisive-error", d.step, check.reason));
  }
  // The agent alone is kept when the step did not hold: all-at-once is better at the agent than at the step.
  if (attribution === null && agent !== null)
    attribution = { method: "all-at-once", agent, spanId: null, stepIndex: null, explanation: d.explanation, ...counterfactualOf(d) };
  return { ok: true, output: { findings: [], attribution, outcome: null, omitted: steps.omitted, rejected, skipped: null } };
});

export const decisiveErrorStepByStep = decisiveJudge("decisive-error-step-by-step", async (ctx, task) => {
  const omitted = new Set<string>();
  const rejected = [];
  const last = ctx.steps.length - 1;
  for (let from = 0; from <= last; from += STEP_WINDOW) {
    const to = Math.min(from + STEP_WINDOW - 1, last);
    const tail = `${WHAT}\nYou are walking the run step by step; the steps before [${from}] were found not decisive. Examine steps [${from}] to [${to}] in order and decide, for each, whether it is the decisive error. Answer with the first one that is, quoting it, or step null when none of them is.\n${REASON}\n\nReply shape:\n{"failure": "<what went wrong>", "step": <step number from ${from} to ${to}> or null, "evidence": "<verbatim quote of that step>", "counterfactual": "<what that step should have done, and why the run would then have succeeded>", "explanation": "<one or two sentences>"}`;
    const shown = ctx.steps.slice(0, to + 1);
    const steps = stepsSection({ ...ctx, steps: shown }, `${task}\n${tail}`, (i) => i >= from);
    for (const o of steps.omitted) omitted.add(`window ${from}-${to}: ${o}`);
    const reply = await ctx.ask({ system: SYSTEM_RULES, user: `${task}\n\nTrajectory so far:\n${steps.text}\n\n${tail}` }, Reply);
    if (!reply.ok) return reply;
    const d = reply.value;
    if (d.step === null) continue;
    if (d.step < from || d.step > to) {
      rejected.push(rejection("decisive-error", d.step, `step ${d.step} is outside the steps examined (${from}-${to})`));
      continue;
    }
    const check = checkCitation(ctx.steps, d.step, d.evidence ?? null);
    if (!check.ok) {
      rejected.push(rejection("decisive-error", d.step, check.reason));
      continue;
    }
    const attribution: JudgeAttribution = {
      method: "step-by-step",
      agent: check.step.agent,
      spanId: check.step.spanId,
      stepIndex: check.step.index,
      explanation: d.explanation,
      ...counterfactualOf(d),
    };
    return { ok: true, output: { findings: [], attribution, outcome: null, omitted: [...omitted], rejected, skipped: null } };
  }
  return { ok: true, output: { findings: [], attribution: null, outcome: null, omitted: [...omitted], rejected, skipped: null } };
});
