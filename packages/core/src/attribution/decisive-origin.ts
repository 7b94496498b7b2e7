/**
 * Cues that follow a failure back to where it started, for the suspect
 * ranking of decisive-error.ts:
 * - the earliest step that changed the task (a phrase of it repeated with a
 *   word or figure swapped), with the later steps that reused the swapped
 *   content: an instruction or plan others faithfully followed is blamed at
 *   the instruction;
 * - the earliest turn that left the task (its words share almost nothing
 *   with the task while the other turns do);
 * - the first run that failed in an executor's turn (an exit code, a
 *   traceback) that no later run of it recovered, charged to the step whose
 *   request it ran (executors.ts);
 * - the first step that said the final answer's figures, when the answer
 *   reuses a value introduced earlier.
 * Each cue carries its evidence chain (steps and quotes).
 */
import type { Step, TraceTrajectories } from "../trajectory/types.ts";
import type { DecisiveCue } from "./decisive-cues.ts";
import { isExecutionOutput, requesterOf, showsFailure } from "./executors.ts";
import { quote } from "../mast/finding.ts";
import { stepsSwappingTask } from "./task-deviation.ts";
import { contentWords, wordTokens } from "../text/text.ts";

const speaks = (s: Step): boolean => (s.kind === "llm" || s.kind === "message") && s.outputText !== null && s.outputText.trim() !== "";

/** The earliest step swapping a phrase of the task, and who reused what it swapped in. */
export function taskSwapCue(t: TraceTrajectories, executors: ReadonlySet<string>, relays: ReadonlySet<string> = new Set()): DecisiveCue | null {
  const authored = t.steps.filter((s) => speaks(s) && !executors.has(s.agentKey ?? "") && !relays.has(s.spanId));
  const first = stepsSwappingTask(t.goal, authored)[0];
  if (first === undefined) return null;
  // A later step followed the change when it repeats the changed word next to a neighbour it had in the change
  // ("Q2 2024"): the bare word alone, common to many turns, is no trace of it.
  const pairs = first.swaps.flatMap((x) => {
    const [a, b, c] = x.said.split(" ") as [string, string, string];
    const at = x.task.split(" ").findIndex((w, i) => w !== x.said.split(" ")[i]);
    return at === 0 ? [`${a} ${b}`] : at === 2 ? [`${b} ${c}`] : [`${a} ${b}`, `${b} ${c}`];
  });
  const says = (s: Step): boolean => {
    const text = ` ${wordTokens(s.outputText as string).join(" ")} `;
    return pairs.some((p) => text.includes(` ${p} `));
  };
  const reusedBy = authored.filter((s) => s.index > first.step.index && says(s));
  const later =
    reusedBy.length === 0
      ? ""
      : `; reused at step${reusedBy.length > 1 ? "s" : ""} ${reusedBy
          .slice(0, 5)
          .map((s) => `${s.index} (${s.agent ?? "?"})`)
          .join(", ")}${reusedBy.length > 5 ? ", …" : ""}`;
  // A figure or a name changed is a changed fact; a common word changed may be a paraphrase, several less likely so.
  const figures = first.swaps.some((s) => s.figure || s.name);
  return {
    step: first.step,
    kind: "task_changed",
    weight: figures
      ? 0.75 + Math.min(0.15, 0.05 * reusedBy.length)
      : 0.25 + Math.min(0.4, 0.2 * (first.swaps.length - 1)) + Math.min(0.09, 0.03 * reusedBy.length),
    evidence: `task changed at step ${first.step.index}: ${first.step.agent ?? "?"} said ${first.swaps
      .slice(0, 2)
      .map((s) => `"${s.said}" where the task says "${s.task}"`)
      .join(", ")}${later}`,
  };
}

/** Turns of at least this many content words are long enough to judge whether they are about the task. */
const LONG_TURN = 25;

/** The earliest long turn sharing almost none of the task's words while the run's other long turns share them. */
export function offTaskCue(t: TraceTrajectories, executors: ReadonlySet<string>, relays: ReadonlySet<string> = new Set()): DecisiveCue | null {
  const goal = contentWords(t.goal ?? "");
  if (goal.size < 5) return null;
  const turns = t.steps
    .filter((s) => speaks(s) && !executors.has(s.agentKey ?? "") && !relays.has(s.spanId))
    .map((s) => ({ s, words: contentWords(s.outputText as string) }))
    .filter((x) => x.words.size >= LONG_TURN);
  if (turns.length < 3) return null;
  const cover = (words: Set<string>): number => [...goal].filter((w) => words.has(w)).length / goal.size;
  const covers = turns.map((x) => cover(x.words)).sort((a, b) => a - b);
  const median = covers[Math.floor(covers.length / 2)] as number;
  const off = turns.find((x) => cover(x.words) < median / 2);
  if (off === undefined || median < 0.2) return null;
  return {
    step: off.s,
    kind: "off_task",
    weight: 0.6,
    evidence: `off task at step ${off.s.index}: ${off.s.agent ?? "?"} ("${quote(off.s.outputText as string, 60)}") shares ${Math.round(100 * cover(off.words))}% of the task's words where the run's turns share ${Math.round(100 * median)}%`,
  };
}

/**
 * The first failed run shown in an executor's turn that no later turn of the
 * same executor recovered (a run that succeeded after it), charged to the
 * step whose request it ran.
 */
export function executionFailureCue(t: TraceTrajectories, executors: ReadonlySet<string>): DecisiveCue | null {
  const runs = t.steps.filter((s) => executors.has(s.agentKey ?? "") && isExecutionOutput(s));
  for (const [i, run] of runs.entries()) {
    if (!showsFailure(run)) continue;
    const recovered = runs.slice(i + 1).some((r) => r.agentKey === run.agentKey && !showsFailure(r));
    if (recovered) continue;
    const requester = requesterOf(t, run, executors);
    if (requester === null) return null;
    return {
      step: requester,
      kind: "execution_failed",
      weight: 0.75,
      evidence: `${run.agent ?? "?"}'s run at step ${run.index} failed ("${quote(run.outputText as string, 60)}") and was never run successfully again; it ran ${requester.agent ?? "?"}'s request at step ${requester.index} ("${quote(requester.outputText as string, 60)}")`,
    };
  }
  return null;
}

/** Moves a cue that landed on an executor's step to the step whose request it ran, saying so. */
export function chargeRequester(t: TraceTrajectories, cue: DecisiveCue, executors: ReadonlySet<string>): DecisiveCue {
  if (!executors.has(cue.step.agentKey ?? "")) return cue;
  const requester = requesterOf(t, cue.step, executors);
  if (requester === null) return cue;
  return {
    ...cue,
    step: requester,
    evidence: `${cue.evidence}; ${cue.step.agent ?? "?"} at step ${cue.step.index} only ran ${requester.agent ?? "?"}'s request at step ${requester.index}, which is charged`,
  };
}

/**
 * The earliest step that introduced a figure the final answer reuses (one
 * the task does not hold), when that step comes before the answer: a value
 * introduced early and carried to the end is where the answer's number
 * started. The chain lists where the value was repeated on the way.
 */
export function valueOriginCue(t: TraceTrajectories, executors: ReadonlySet<string>, relays: ReadonlySet<string> = new Set()): DecisiveCue | null {
  const authored = t.steps.filter((s) => speaks(s) && !executors.has(s.agentKey ?? "") && !relays.has(s.spanId));
  const final = authored[authored.length - 1];
  if (final === undefined) return null;
  const given = new Set(figuresOf(t.goal ?? ""));
  const before = authored.filter((s) => s.index < final.index);
  let best: { step: Step; value: string; carried: Step[] } | null = null;
  for (const value of new Set(figuresOf(final.outputText as string))) {
    if (given.has(value) || value.replace(/\D/g, "").length < 2) continue;
    const sayers = before.filter((s) => figuresOf(s.outputText as string).includes(value));
    const first = sayers[0];
    // A value most turns repeat is the run's common ground, not one step's contribution.
    if (first === undefined || sayers.length > Math.max(2, before.length / 2)) continue;
    if (best === null || first.index < best.step.index) best = { step: first, value, carried: sayers.slice(1) };
  }
  if (best === null) return null;
  const { step, value, carried } = best;
  return {
    step,
    kind: "value_origin",
    weight: 0.25,
    evidence: `the final answer (step ${final.index}) reuses "${value}", first said by ${step.agent ?? "?"} at step ${step.index} ("${quote(step.outputText as string, 60)}")${carried.length === 0 ? "" : `, carried through step${carried.length > 1 ? "s" : ""} ${carried.map((x) => x.index).join(", ")}`}`,
  };
}

/** Numbers as written, thousands separators dropped: "15,453" → "15453", "0.42" → "0.42". */
function figuresOf(text: string): string[] {
  return (text.match(/\d+(?:[.,]\d+)*/g) ?? []).map((f) => (/^\d{1,3}(,\d{3})+$/.test(f) ? f.replace(/,/g, "") : f));
}
