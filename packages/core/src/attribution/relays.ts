/**
 * Relays are not authors. A turn made of the task and of other agents'
 * messages quoted whole (a user proxy restating the request, a moderator
 * passing on "the opinions of the other agents", a manager forwarding a
 * result) adds nothing of its own: whatever is wrong in it was said first by
 * the turn it quotes, or by the task. So a relay turn is never the origin of
 * content the failure depends on; the turn it quotes is, even when the log
 * records the quoted turn later (debate rounds run in parallel and are
 * logged one agent at a time). A relay that changes what it passes on is no
 * relay: only a turn that repeats verbatim is one. Recognised from the text
 * alone: long word sequences shared verbatim, never a speaker's name or role.
 */
import type { Step } from "../trajectory/types.ts";
import { wordTokens } from "../text/text.ts";

/** Word sequences this long shared verbatim are quoted, not written again by chance. */
const SPAN = 6;
/** A relay's words are at least this much quotation (of the task and of whole turns it contains). */
const QUOTED = 0.8;
/** A turn counts as quoted whole when this much of it is in the relay. */
const WHOLE = 0.8;

const grams = (text: string): string[] => {
  const w = wordTokens(text.slice(0, 40_000));
  const out: string[] = [];
  for (let i = 0; i + SPAN <= w.length; i++) out.push(w.slice(i, i + SPAN).join(" "));
  return out;
};

/** Span ids of the turns that only relay the task and other agents' turns. */
export function relaySteps(goal: string | null, steps: Step[]): Set<string> {
  const turns = steps.filter((s) => (s.kind === "llm" || s.kind === "message") && (s.outputText ?? "").trim() !== "");
  const byTurn = turns.map((s) => ({ s, list: grams(s.outputText as string) })).map((x) => ({ ...x, set: new Set(x.list) }));
  const task = new Set(grams(goal ?? ""));
  const relays = new Set<string>();
  for (const x of byTurn) {
    if (x.list.length < SPAN) continue;
    const quoted = new Set(task);
    for (const y of byTurn) {
      if (y.s.agentKey === x.s.agentKey || y.list.length === 0 || y.list.length >= x.list.length) continue;
      if (y.list.filter((g) => x.set.has(g)).length >= WHOLE * y.list.length) for (const g of y.list) quoted.add(g);
    }
    // The share of its words inside a quoted sequence.
    const covered = new Array<boolean>(x.list.length + SPAN - 1).fill(false);
    x.list.forEach((g, i) => {
      if (quoted.has(g)) for (let k = i; k < i + SPAN; k++) covered[k] = true;
    });
    if (covered.filter(Boolean).length >= QUOTED * covered.length) relays.add(x.s.spanId);
  }
  return relays;
}
