/** Scripted judge replies for the travel trace (travel-trace.ts), as a judge model would write them. */
import { APPROVAL, HANDOFF_MESSAGE } from "./travel-trace.ts";

const no = (mode: string) => ({ mode, answer: "no", explanation: "not seen", confidence: 0.8 });
const MODES = ["FM-1.1", "FM-1.2", "FM-1.3", "FM-1.4", "FM-1.5", "FM-2.1", "FM-2.2", "FM-2.3", "FM-2.4", "FM-2.5", "FM-2.6", "FM-3.1", "FM-3.2", "FM-3.3"];

type Answer = Record<string, unknown> & { mode: string };

/** A checklist reply: "no" to every mode but the ones given. */
export function checklistReply(...yes: Answer[]): string {
  return JSON.stringify({ answers: MODES.map((m) => yes.find((a) => a.mode === m) ?? no(m)) });
}

/** The checker approved without looking at the carrier: FM-3.2 and FM-3.3 at step 4. */
export const rubberStampReply = checklistReply(
  {
    mode: "FM-3.2",
    answer: "yes",
    step: 4,
    evidence: "Looks good to me.",
    explanation: "the checker did not check the carrier against the EU-only requirement",
    confidence: 0.7,
  },
  { mode: "FM-3.3", answer: "yes", step: 4, evidence: APPROVAL.slice(18, 27), explanation: "approved a non-EU carrier", confidence: 0.8 },
);

export const droppedConstraintReply = JSON.stringify({
  issues: [
    {
      handoff: 0,
      constraint: "EU carriers only",
      change: "dropped",
      handoffQuote: HANDOFF_MESSAGE.slice(0, 40),
      explanation: "the searcher was never told to stay with EU carriers",
      confidence: 0.9,
    },
  ],
});
