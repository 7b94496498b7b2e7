/**
 * FM-3.1 premature termination without milestones: a failed run that stopped
 * by its own decision (no cap, last step and root not in error, as in
 * premature-termination.ts) right where the trace shows work left undone:
 * - after an unrecovered error, with no retry and no other action after it
 *   (only model calls or turns closing the run): the run gave up;
 * - on a model call that asked for a tool (finish reason tool_calls,
 *   tool_use, ...) that never ran;
 * - on an output whose last sentence announces a next action ("Let me
 *   search ...", "Next, I will ...") that never came.
 * One finding per run, the first of these that holds, citing the last step.
 * Stands down when milestones or completion conditions are configured: they
 * say what "done" is (registry.ts).
 */
import type { Step, TraceTrajectories } from "../../trajectory/types.ts";
import { finding, quote, type DetectorFinding } from "../finding.ts";
import { unrecoveredErrors } from "../unrecovered-errors.ts";
import { findCap } from "./termination.ts";

export interface PrematureStopOptions {
  /** Outcome of the run; the detector reads only failed runs (false). */
  outcomeSuccess?: boolean | null;
}

const TOOL_CALL_FINISH = new Set(["tool_calls", "tool-calls", "tool_call", "tool_use", "function_call"]);
/** A sentence announcing the speaker's next action ... */
const ANNOUNCED_ACTION = /^(let me|let's|i will|i'll|i am going to|i'm going to|we will|we'll|we are going to|next,? (i|we)|now,? (i|we)('ll| will))\b/i;
/** ... and closing phrases that begin the same way ("Let me know if ...", "I'll be glad to ..."). */
const CLOSING_PHRASE = /^(let me know|(i|we)('ll| will) (be|keep|let|stay)\b)/i;

/** The last sentence of a text (trailing punctuation and closing quotes dropped). */
function lastSentence(text: string): string {
  const sentences = text
    .trim()
    .split(/(?<=[.!?…:])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return sentences[sentences.length - 1] ?? "";
}

const isAction = (s: Step): boolean => s.kind === "tool" || s.kind === "handoff";

export function detectPrematureStop(t: TraceTrajectories, options: PrematureStopOptions = {}): DetectorFinding[] {
  if (options.outcomeSuccess !== false || t.steps.length === 0 || findCap(t) !== null) return [];
  const root = t.rootSpanId === null ? undefined : t.spanById.get(t.rootSpanId);
  const last = t.steps[t.steps.length - 1] as Step;
  if (last.isError || root?.isError === true) return []; // a crash is not a decision
  const stopped = (confidence: number, evidence: string): DetectorFinding[] => [
    finding({ mode: "FM-3.1", agent: last.agent, spanId: last.spanId, stepIndex: last.index, source: "heuristic", confidence, evidence }),
  ];

  const gaveUp = unrecoveredErrors(t).at(-1);
  if (gaveUp !== undefined && !t.steps.some((s) => s.index > gaveUp.index && isAction(s) && !s.isError)) {
    const what = `${gaveUp.agent ?? "?"}'s ${gaveUp.toolName ?? gaveUp.kind}`;
    const why = gaveUp.errorType === null ? "" : ` (${quote(gaveUp.errorType, 40)})`;
    return stopped(0.5, `the failed run stopped after ${what} failed at step ${gaveUp.index}${why}: no retry and no other action followed`);
  }
  const pending = last.kind === "llm" ? last.finishReasons.find((r) => TOOL_CALL_FINISH.has(r)) : undefined;
  if (pending !== undefined) {
    return stopped(0.5, `the failed run stopped on ${last.agent ?? "?"}'s model call that asked for a tool (finish reason "${pending}"), and no tool ran`);
  }
  const said = last.kind === "llm" || last.kind === "message" ? lastSentence((last.outputText ?? "").replace(/[‘’]/g, "'")) : "";
  if (ANNOUNCED_ACTION.test(said) && !CLOSING_PHRASE.test(said) && !said.endsWith("?")) {
    return stopped(0.4, `the failed run stopped on ${last.agent ?? "?"} announcing a next step that never came ("${quote(said, 60)}")`);
  }
  return [];
}
