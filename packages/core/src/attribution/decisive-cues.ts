/**
 * What the trajectory of a failed run shows about where it went wrong, as
 * weighted cues for the suspect ranking of decisive-error.ts (used when no
 * rule fires):
 * - loops: where a repetition (FM-1.3) started: the first saying of a repeated
 *   turn, the first redundant call of a repeated tool call;
 * - approvals: a turn approving a run that failed;
 * - content, when the run's shape shows nothing wrong: the step the approved
 *   result and the final answer got their content from (an approval only
 *   failed to catch a mistake made upstream; the decisive step is the
 *   earliest, as Who&When defines it), and a rejection the run followed
 *   before it failed.
 */
import type { Step, TraceTrajectories } from "../trajectory/types.ts";
import type { DetectorFinding } from "../mast/finding.ts";
import { quote } from "../mast/finding.ts";
import { turnChains } from "../mast/detectors/repetition.ts";
import { stepSignature } from "../text/step-signature.ts";
import { contentSimilarity, contentWords, wordTokens } from "../text/text.ts";
import { APPROVAL_PATTERN, REJECTION_PATTERN } from "../mast/detectors/verification.ts";

export interface DecisiveCue {
  step: Step;
  /** What kind of evidence it is: rank-1 confidence is calibrated per kind (decisive-error.ts). */
  kind: CueKind;
  weight: number;
  evidence: string;
}

export type CueKind =
  | "loop_start"
  | "approved_failed_run"
  | "approved_result_origin"
  | "rejection_followed"
  | "final_answer_origin"
  | "task_changed"
  | "off_task"
  | "execution_failed"
  | "value_origin"
  | "corrected_contribution";

/** Figures (anything with a digit) are the checkable claims of a result: they weigh more than words when tracing its content. */
const FIGURE_WEIGHT = 3;

const approves = (s: Step): boolean => s.outputText !== null && APPROVAL_PATTERN.test(s.outputText) && !REJECTION_PATTERN.test(s.outputText);
/** A turn that opens with a rejection verdict (a text merely mentioning a failure is no verdict). */
export const REJECTING_VERDICT = /^\W*(reject(ed|s)?|not approved|do not approve|changes requested)\b/i;
/** Content overlap under which a final answer no longer restates a result. */
const FOLLOWED_BELOW = 0.5;
const speaks = (s: Step): boolean => (s.kind === "llm" || s.kind === "message") && s.outputText !== null;

/** Cues from the run's shape: where loops started. */
export function loopCues(t: TraceTrajectories, findings: DetectorFinding[]): DecisiveCue[] {
  const cues: DecisiveCue[] = [];
  const repeats = findings.filter((f) => f.mode === "FM-1.3");
  const repeatedAt = new Set(repeats.map((f) => f.spanId));
  for (const agent of t.agents) {
    for (const chain of turnChains(agent)) {
      const first = chain[0] as Step;
      if (chain.length < 2 || !chain.some((s) => repeatedAt.has(s.spanId))) continue;
      cues.push({
        step: first,
        kind: "loop_start",
        weight: 0.7,
        evidence: `loop start: ${agent.name} said this turn ${chain.length} times and the run never moved past it`,
      });
    }
  }
  return cues;
}

/**
 * The identical calls of a repeated tool call (FM-1.3, cited at its k-th
 * saying) up to the cited one; null for other findings. The first call was
 * work, the second is where the agent stopped making progress.
 */
export function toolLoop(t: TraceTrajectories, f: DetectorFinding): Step[] | null {
  const cited = f.mode === "FM-1.3" && f.stepIndex !== null ? t.steps[f.stepIndex] : undefined;
  if (cited === undefined || cited.kind !== "tool" || cited.spanId !== f.spanId) return null;
  const signature = stepSignature(cited);
  const calls = t.steps.filter((s) => s.index <= cited.index && s.agentKey === cited.agentKey && stepSignature(s) === signature);
  return calls.length < 2 ? null : calls;
}

/** A turn approving a run that failed, unless a verifier finding (FM-3.3) already cites it. */
export function approvingTurnCue(t: TraceTrajectories, findings: DetectorFinding[]): DecisiveCue | null {
  const verified = new Set(findings.filter((f) => f.mode === "FM-3.3").map((f) => f.spanId));
  const turn = [...t.steps].reverse().find((s) => s.kind === "message" && approves(s));
  if (turn === undefined || verified.has(turn.spanId)) return null;
  return {
    step: turn,
    kind: "approved_failed_run",
    weight: 0.4,
    evidence: `${turn.agent ?? "?"} approved ("${quote(turn.outputText as string, 60)}") and the run failed`,
  };
}

/**
 * Cues from content, for a failed run whose shape shows nothing wrong: the
 * origin of what an approval judged (the approval only failed to catch it),
 * and the origin of the final answer.
 */
export function contentCues(t: TraceTrajectories, findings: DetectorFinding[], relays: ReadonlySet<string> = new Set()): DecisiveCue[] {
  const cues: DecisiveCue[] = [];
  const approvals = findings.filter((f) => f.mode === "FM-3.3").flatMap((f) => (f.stepIndex === null ? [] : [t.steps[f.stepIndex] as Step]));
  const turn = approvingTurnCue(t, findings);
  if (turn !== null) approvals.push(turn.step);
  for (const approval of approvals) {
    const judged = judgedBy(t, approval);
    if (judged === undefined) continue;
    const origin = contentOrigin(t, judged, approval.agent, relays);
    if (origin !== null)
      cues.push({
        step: origin.step,
        kind: "approved_result_origin",
        weight: 0.7,
        evidence: `${approval.agent ?? "?"} approved a result whose content ${origin.why}`,
      });
  }
  // A relay's text was said first by the turn it quotes: the final answer is the last turn that wrote its own.
  const final = [...t.steps].reverse().find((s) => speaks(s) && !relays.has(s.spanId));
  // A rejection the run followed (the final answer moved away from what was rejected) steered a run that failed.
  for (const rejection of t.steps.filter((s) => speaks(s) && REJECTING_VERDICT.test(s.outputText as string))) {
    const judged = judgedBy(t, rejection);
    if (final === undefined || judged === undefined || final.index <= rejection.index) continue;
    if (contentSimilarity(final.outputText as string, judged.outputText as string) >= FOLLOWED_BELOW) continue;
    cues.push({
      step: rejection,
      kind: "rejection_followed",
      weight: 0.5,
      evidence: `${rejection.agent ?? "?"} rejected ${judged.agent ?? "?"}'s result ("${quote(rejection.outputText as string, 60)}"), the run moved away from it and failed`,
    });
  }
  if (final !== undefined) {
    const origin = contentOrigin(t, final, null, relays);
    if (origin !== null) cues.push({ step: origin.step, kind: "final_answer_origin", weight: 0.3, evidence: `the final answer's content ${origin.why}` });
  }
  return cues;
}

/** What a verdict judged: the last thing another agent said before it, other than asking the judge to check. */
function judgedBy(t: TraceTrajectories, verdict: Step): Step | undefined {
  // The judge's name as words ("user_proxy" matches "user proxy"); a name with no letters or digits names nobody.
  const words = (verdict.agent ?? "").match(/[\p{L}\p{N}]+/gu) ?? [];
  const addressed = words.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}])${words.join("[^\\p{L}\\p{N}]+")}(?![\\p{L}\\p{N}])`, "iu");
  return [...t.steps]
    .reverse()
    .find((s) => s.index < verdict.index && s.agent !== verdict.agent && speaks(s) && !(addressed?.test(s.outputText as string) ?? false));
}

/**
 * The step a result's content comes from: each content word of the result
 * that the goal does not already hold is traced to the first step saying it
 * (in its output or its arguments); the step introducing the most of it
 * (figures weigh more) is the origin, the result itself when it says
 * something new. Steps of `skipAgent` (the approver) are not origins.
 */
function contentOrigin(t: TraceTrajectories, result: Step, skipAgent: string | null, relays: ReadonlySet<string>): { step: Step; why: string } | null {
  const goal = contentWords(t.goal ?? "");
  const words = [...contentWords(result.outputText ?? "")].filter((w) => !goal.has(w));
  if (words.length === 0) return null;
  const earlier = t.steps.filter((s) => s.index <= result.index && (skipAgent === null || s.agent !== skipAgent) && !relays.has(s.spanId));
  // The first earlier step saying each word, in one pass that stops once every word is placed. The words are
  // content words already, so a step says one when it is among the step's tokens.
  const wanted = new Set(words);
  const firstSaid = new Map<string, Step>();
  const sayers = new Map<string, number>();
  for (const s of earlier) {
    if (s.index === result.index) continue;
    for (const w of new Set(wordTokens(`${s.outputText ?? ""} ${s.args ?? ""}`))) {
      if (!wanted.has(w)) continue;
      if (!firstSaid.has(w)) firstSaid.set(w, s);
      sayers.set(w, (sayers.get(w) ?? 0) + 1);
    }
  }
  // A word most earlier steps say is the run's common ground ("solve", "steps"), not one step's contribution.
  const others = earlier.filter((s) => s.index !== result.index).length;
  const common = (w: string): boolean => (sayers.get(w) ?? 0) > Math.max(2, others / 2);
  const score = new Map<number, { step: Step; weight: number; words: string[] }>();
  for (const w of words) {
    if (common(w)) continue;
    const from = firstSaid.get(w) ?? result;
    const entry = score.get(from.index) ?? { step: from, weight: 0, words: [] };
    entry.weight += /\p{N}/u.test(w) ? FIGURE_WEIGHT : 1;
    entry.words.push(w);
    score.set(from.index, entry);
  }
  // On a tie the result itself: a claim no earlier step made is its speaker's own.
  const own = (e: { step: Step }): number => (e.step.index === result.index ? 0 : 1);
  const best = [...score.values()].sort((a, b) => b.weight - a.weight || own(a) - own(b) || a.step.index - b.step.index)[0];
  if (best === undefined) return null;
  const words3 = best.words.slice(0, 3).join(", ");
  return {
    step: best.step,
    why:
      best.step.index === result.index
        ? `was first said here (${words3})`
        : `("${words3}") was first said by ${best.step.agent ?? "?"} at step ${best.step.index}`,
  };
}
