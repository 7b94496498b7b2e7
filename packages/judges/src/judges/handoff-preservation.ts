/**
 * Handoff preservation (docs/judges.md §2.2): the task's request against
 * each handoff message; every constraint the request states that a handoff
 * dropped or changed is an FM-2.4 finding, attributed to the sender and
 * citing the handoff. The constraint must be quoted from the request and the
 * handoff's wording from its message, or the issue is rejected.
 */
import type { JudgeFinding } from "@crux/contracts";
import type { HandoffRecord, TraceTrajectories } from "@crux/core";
import { z } from "zod";
import { quoteOccursIn } from "../citations.ts";
import { cut, estimateTokens, FIELD_CHARS } from "../window.ts";
import { confidence, looseText, rejection, skip, stepNumber, SYSTEM_RULES, taskSection, type JudgeDefinition } from "./judge.ts";

const Issue = z.object({
  handoff: stepNumber.pipe(z.number()),
  constraint: z.string().min(1),
  change: z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(["dropped", "changed"])),
  handoffQuote: z.string().min(1),
  explanation: looseText,
  confidence,
});
const Reply = z.object({ issues: z.array(Issue) });

const SHAPE = `{"issues": [{"handoff": <handoff number>, "constraint": "<the constraint, quoted word for word from the task request>", "change": "dropped" or "changed", "handoffQuote": "<the words of that handoff's message that restate the request without it, or that change it, quoted word for word>", "explanation": "<one sentence>", "confidence": <0 to 1>}]}\nAn empty list when every handoff keeps every constraint.`;

/** The step a handoff is cited at: its own step, else the receiver's first step from the handoff on (where the message arrived as input). */
function citedStep(t: TraceTrajectories, h: HandoffRecord): number | null {
  if (h.stepIndex !== null) return h.stepIndex;
  const step = t.steps.find((s) => s.agent === h.receiver && s.startNs >= h.startNs);
  return step?.index ?? null;
}

export const handoffPreservation: JudgeDefinition = {
  kind: "handoff-preservation",
  version: 1,
  inputs: ["spans"],
  // Dropped or changed constraints across a handoff: information not passed on.
  asksAbout: ["FM-2.4"],
  async run(ctx) {
    const t = ctx.input.trajectories;
    if (t.goal === null) return skip("no task request captured to compare the handoffs with");
    const omitted: string[] = [];
    const withMessage = t.handoffs.filter((h) => h.message !== null);
    const silent = t.handoffs.filter((h) => h.message === null).map((h) => h.index);
    if (silent.length > 0)
      omitted.push(silent.length === 1 ? `handoff ${silent[0]} carries no captured message` : `handoffs ${silent.join(", ")} carry no captured message`);
    if (withMessage.length === 0) return skip("no handoff message captured");
    const task = taskSection(t, ctx.input.runTags);
    const tail = `For each handoff above, compare its message with the task request. List every constraint the request states (a limit, a requirement, an exclusion, a preference) that the handoff's message drops or changes. Constraints the receiver does not need for its part are not issues.\n\nReply shape:\n${SHAPE}`;
    let left = ctx.promptTokens - estimateTokens(SYSTEM_RULES) - estimateTokens(task) - estimateTokens(tail);
    const shown: string[] = [];
    const leftOut: number[] = [];
    for (const h of withMessage) {
      const line = `Handoff ${h.index}: ${h.sender ?? "(unknown)"} → ${h.receiver ?? "(unknown)"}\n  message: ${cut(h.message!, FIELD_CHARS).text}`;
      if (estimateTokens(line) > left) {
        leftOut.push(h.index);
        continue;
      }
      left -= estimateTokens(line);
      shown.push(line);
    }
    if (leftOut.length > 0) omitted.push(`handoff${leftOut.length === 1 ? "" : "s"} ${leftOut.join(", ")} left out (context)`);
    const reply = await ctx.ask({ system: SYSTEM_RULES, user: `${task}\n\nHandoffs:\n${shown.join("\n")}\n\n${tail}` }, Reply);
    if (!reply.ok) return reply;
    const findings: JudgeFinding[] = [];
    const rejected = [];
    for (const issue of reply.value.issues) {
      const h = withMessage.find((x) => x.index === issue.handoff);
      const at = h === undefined ? null : citedStep(t, h);
      if (h === undefined) rejected.push(rejection("FM-2.4", null, `handoff ${issue.handoff} does not exist or carries no message`));
      else if (!quoteOccursIn(issue.constraint, t.goal))
        rejected.push(rejection("FM-2.4", at, `the constraint is not in the task request: ${JSON.stringify(issue.constraint.slice(0, 120))}`));
      else if (!quoteOccursIn(issue.handoffQuote, h.message!))
        rejected.push(rejection("FM-2.4", at, `the quote is not in handoff ${h.index}'s message: ${JSON.stringify(issue.handoffQuote.slice(0, 120))}`));
      else if (at === null) rejected.push(rejection("FM-2.4", null, `handoff ${h.index} has no step to cite`));
      else {
        findings.push({
          mode: "FM-2.4",
          agent: h.sender,
          spanId: h.spanId,
          stepIndex: at,
          evidence: issue.handoffQuote,
          explanation: `${issue.change} "${issue.constraint}"${issue.explanation ? `: ${issue.explanation}` : ""}`,
          confidence: issue.confidence,
        });
      }
    }
    findings.sort((x, y) => x.stepIndex - y.stepIndex);
    return { ok: true, output: { findings, attribution: null, outcome: null, omitted, rejected, skipped: null } };
  },
};
