/**
 * A contribution the team corrected: a turn that a later turn of another
 * agent called wrong ("the answer incorrectly states…", "contains a
 * calculation error") and whose own new content the final answer dropped.
 * Both halves are needed. A criticism alone is cheap (a faulty reviewer
 * criticises a right answer as readily as a wrong one), and content dropped
 * alone is ordinary editing; a turn that was called wrong and then edited out
 * is where a mistake entered the run, even when the run recovered from it
 * before its end, and whatever the final answer says.
 *
 * What a criticism is about: the turn of the agent it names (by name, as
 * words), else the latest turn of another agent before it that wrote its own
 * content (relays and executors are passed over: they wrote nothing of their
 * own). Lexical, not an understanding.
 */
import type { Step } from "../trajectory/types.ts";
import { REJECTING_VERDICT, type DecisiveCue } from "./decisive-cues.ts";
import { quote } from "../mast/finding.ts";
import { contentWords } from "../text/text.ts";

/** A verdict that something said is wrong, in the opening of a turn (where a review states it). */
const CALLED_WRONG =
  /\b(incorrect(ly)?|inaccura(te|tely|cy|cies)|erroneous(ly)?|mistaken(ly)?|wrongly|(is|are|was|were) wrong|flawed|misinterpret\w*|misunderst\w*|miscalculat\w*|contradicts?|(an?|the|significant|critical|major|several|multiple|calculation|logical|arithmetic|computational) (error|mistake|flaw)s?)\b/i;
const CALLED_WRONG_ALL = new RegExp(CALLED_WRONG.source, "gi");
/** A verdict word with a negation just before it: "contains no significant errors", "is not incorrect". */
const NEGATED = /\b(no|not|nor|without|free of|any)\W+(\w+\W+)?$/i;
/**
 * A speaker describing its own step ("we will incorrectly assume", "I initially misapplied the efficiency in my
 * calculations, leading to an incorrect…") criticises no one: a first-person word earlier in the verdict's sentence.
 */
const SELF = /\b(we|i|let's|let us|we'll|i'll|my|our)\b[^.!?\n]*$/i;
/** How far back the verdict's sentence is read for a first-person word. */
const SENTENCE = 150;
/** Where a review states its verdict: its opening. */
const OPENING = 500;
/** A contribution is only judged by what it added: this many new content words at least. */
const MIN_NEW = 3;
/** A turn restating the whole task is judged only by what it added beyond a line of instructions: this many words. */
const RESTATED_MIN_NEW = 8;
/** A turn whose new words are under this share of its content words mostly restates what was said. */
const OWN_SHARE = 0.2;
/** A criticism naming no agent is about an earlier turn than the latest when it repeats this many of that turn's own words. */
const ECHOED = 3;
/** The criticised turn's dropped share of its new content, summed over its criticisms, must pass this. */
const DROPPED = 0.5;

const speaks = (s: Step): boolean => (s.kind === "llm" || s.kind === "message") && s.outputText !== null && s.outputText.trim() !== "";

/**
 * An agent's name as a pattern over its letter and digit runs, however the text separates them ("user_proxy"
 * matches "user proxy", "assistant2" matches "Assistant 2"); null for a name with neither.
 */
function namePattern(agent: string | null): RegExp | null {
  const runs = (agent ?? "").match(/\p{L}+|\p{N}+/gu) ?? [];
  if (runs.length === 0) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}])${runs.join("[^\\p{L}\\p{N}]*")}(?![\\p{L}\\p{N}])`, "iu");
}

/**
 * The turn other agents called wrong whose new content the final answer dropped (the most so; the earliest on a
 * tie); the cue carries the criticisms and what was dropped. Null when no turn is both.
 */
export function correctedContributionCue(
  t: { goal: string | null; steps: Step[] },
  executors: ReadonlySet<string>,
  relays: ReadonlySet<string>,
): DecisiveCue | null {
  const authored = t.steps.filter((s) => speaks(s) && !executors.has(s.agentKey ?? "") && !relays.has(s.spanId));
  const final = authored[authored.length - 1];
  if (final === undefined || authored.length < 3) return null;
  // What each turn added: content words neither the task nor an earlier turn said.
  const said = contentWords(t.goal ?? "");
  const added = new Map<string, Set<string>>();
  const wordsOf = new Map<string, Set<string>>();
  for (const s of authored) {
    const words = contentWords(s.outputText as string);
    wordsOf.set(s.spanId, words);
    const own = new Set<string>();
    for (const w of words) if (!said.has(w)) own.add(w);
    added.set(s.spanId, own);
    for (const w of words) said.add(w);
  }
  const finalWords = contentWords(final.outputText as string);
  const task = contentWords(t.goal ?? "");
  // A turn holding the whole task: a request restated, perhaps with a line of instructions added.
  const restatesTask = (s: Step): boolean => {
    if (task.size === 0) return false;
    const words = contentWords(s.outputText as string);
    return [...task].filter((w) => words.has(w)).length >= 0.9 * task.size;
  };
  const names = new Map<string, RegExp | null>();
  for (const s of authored) if (!names.has(s.agent ?? "")) names.set(s.agent ?? "", namePattern(s.agent));
  // Who called whom wrong, in order.
  const criticisms: { critic: Step; target: Step; quote: string }[] = [];
  for (const critic of authored) {
    if (critic === final) break;
    const opening = (critic.outputText as string).slice(0, OPENING);
    // A formal verdict ("Rejected: …") is a decision the run obeys, weighed as such by the rejection cue
    // (decisive-cues.ts): whether the rejected turn or the rejection was wrong is what the run's end tells.
    if (REJECTING_VERDICT.test(opening)) continue;
    const verdict = calledWrong(opening);
    if (verdict === null) continue;
    const earlier = authored.filter((s) => s.index < critic.index && s.agent !== critic.agent);
    const named = earlier.filter((s) => names.get(s.agent ?? "")?.test(opening) ?? false);
    const target = named[named.length - 1] ?? echoed(opening, earlier, added, wordsOf) ?? earlier[earlier.length - 1];
    if (target === undefined) continue;
    criticisms.push({ critic, target, quote: quote(opening.slice(Math.max(0, verdict - 40)), 80) });
  }
  // Each criticised turn scores the share of its new content the final answer dropped, once per criticism: a turn
  // several reviewers called wrong, and that was then edited out, leads. A criticism that was itself called wrong
  // counts for nothing: a faulty reviewer's verdict is no evidence. The reviewer's later turns being criticised
  // says nothing of it: in a review-and-revise chain every revision is reviewed, and so criticised, by the next.
  const charged = new Map<string, { target: Step; score: number; critics: { step: Step; quote: string }[]; dropped: string[]; own: number }>();
  for (const c of criticisms) {
    const { critic, target } = c;
    const own = added.get(target.spanId) as Set<string>;
    const total = contentWords(target.outputText as string).size;
    // A turn that mostly restates the task (a request with a line of instructions) added too little to be judged.
    if (own.size < MIN_NEW || own.size < OWN_SHARE * total) continue;
    if (own.size < RESTATED_MIN_NEW && restatesTask(target)) continue;
    if (criticisms.some((d) => d.critic.index > critic.index && d.target === critic)) continue;
    const dropped = [...own].filter((w) => !finalWords.has(w));
    const entry = charged.get(target.spanId) ?? { target, score: 0, critics: [], dropped, own: own.size };
    entry.score += dropped.length / own.size;
    entry.critics.push({ step: critic, quote: c.quote });
    charged.set(target.spanId, entry);
  }
  const best = [...charged.values()].sort((a, b) => b.score - a.score || a.target.index - b.target.index)[0];
  if (best === undefined || best.score <= DROPPED) return null;
  const { target, critics, dropped, own } = best;
  return {
    step: target,
    kind: "corrected_contribution",
    weight: 0.7,
    evidence: `corrected at step ${target.index}: ${critics
      .slice(0, 2)
      .map((c) => `${c.step.agent ?? "?"} at step ${c.step.index} called ${target.agent ?? "?"}'s turn wrong ("${c.quote}")`)
      .join(", ")}, and the final answer (step ${final.index}) dropped ${dropped.length} of the ${own} words it added (${dropped.slice(0, 3).join(", ")})`,
  };
}

/**
 * The earlier turn a criticism is about when it names no agent but repeats what that turn added: the turn whose own
 * new words, not carried on by the latest turn nor repeated by another agent since, the criticism's opening says at
 * least ECHOED times. Null when none.
 */
function echoed(opening: string, earlier: Step[], added: Map<string, Set<string>>, wordsOf: Map<string, Set<string>>): Step | null {
  const latest = earlier[earlier.length - 1];
  if (latest === undefined) return null;
  // Words the latest turn carried on are about it, whoever first said them: a review of a revision quotes the revision.
  const carried = wordsOf.get(latest.spanId) as Set<string>;
  // Each word of the criticism with the earlier turns that said it, looked up once per criticism.
  const saidBy = new Map<string, Step[]>();
  for (const w of contentWords(opening))
    if (!carried.has(w))
      saidBy.set(
        w,
        earlier.filter((o) => (wordsOf.get(o.spanId) as Set<string>).has(w)),
      );
  // Words a third agent repeated after the turn are the run's common vocabulary by then ("the answer provided"
  // opening every review), not what that turn alone said.
  const echoes = (s: Step): number =>
    [...(added.get(s.spanId) ?? [])].filter((w) => saidBy.get(w)?.every((o) => o.index <= s.index || o.agent === s.agent) ?? false).length;
  let best: Step | null = null;
  let most = ECHOED - 1;
  for (const s of earlier) {
    const n = echoes(s);
    if (n > most) [best, most] = [s, n];
  }
  return best;
}

/** Where a criticism starts in a text, or null; "no significant errors" is no criticism. */
function calledWrong(text: string): number | null {
  for (const m of text.matchAll(CALLED_WRONG_ALL)) {
    const before = text.slice(Math.max(0, m.index - 25), m.index);
    const sentence = text.slice(Math.max(0, m.index - SENTENCE), m.index);
    if (!NEGATED.test(before) && !SELF.test(sentence)) return m.index;
  }
  return null;
}
