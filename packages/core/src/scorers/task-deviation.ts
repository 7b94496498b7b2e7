/**
 * Where a run changed the task: a step that repeats a phrase of the task with
 * one word or figure swapped ("the 2021 population" where the task asks for
 * "the 2023 population", "return the sum" where it says "return the
 * product"). The earliest such step introduced the wrong content every later
 * step that reuses it depends on, so it is where a plan or instruction that
 * others faithfully followed went wrong. Lexical, not an understanding: a
 * phrase counts when both words around the swapped one match the task.
 */
import type { Step } from "../trajectory/types.ts";
import { contentWords, wordTokens } from "./text.ts";

export interface TaskSwap {
  /** What the step said, three words: "the 2021 population". */
  said: string;
  /** What the task says in the same place: "the 2023 population". */
  task: string;
  /** The swapped word is a figure. */
  figure: boolean;
}

export interface TaskPhrases {
  trigrams: Set<string>;
  /** "a c" (the words around a middle one) → the middle words the task puts there. */
  middles: Map<string, Set<string>>;
  words: Set<string>;
}

const isFigure = (w: string): boolean => /\p{N}/u.test(w);
/** A word that carries content, or a figure however short ("q3"). */
const carries = (w: string): boolean => isFigure(w) || contentWords(w).size > 0;
/** Inflections are no swap: "earned" for "earn", "numbers" for "number". */
const sameStem = (x: string, y: string): boolean => !isFigure(x) && x.slice(0, Math.max(4, Math.min(x.length, y.length) - 2)) === y.slice(0, Math.max(4, Math.min(x.length, y.length) - 2));
/** Math markup words a restatement may add or change without changing the task. */
const MARKUP = new Set(["text", "mathrm", "frac", "times", "cdot", "left", "right", "quad", "boxed", "dfrac", "sqrt", "mathbf", "textbf"]);

export function taskPhrases(goal: string): TaskPhrases {
  const tokens = wordTokens(goal);
  const trigrams = new Set<string>();
  const middles = new Map<string, Set<string>>();
  for (let i = 1; i + 1 < tokens.length; i++) {
    const [a, x, c] = [tokens[i - 1] as string, tokens[i] as string, tokens[i + 1] as string];
    trigrams.add(`${a} ${x} ${c}`);
    const key = `${a} ${c}`;
    middles.set(key, (middles.get(key) ?? new Set()).add(x));
  }
  return { trigrams, middles, words: new Set([...contentWords(goal), ...tokens.filter(isFigure)]) };
}

/** The task phrases a text repeats with one word swapped; at most `max`. */
export function taskSwaps(phrases: TaskPhrases, text: string, max = 5): TaskSwap[] {
  const tokens = wordTokens(text.slice(0, 20_000));
  const swaps: TaskSwap[] = [];
  const seen = new Set<string>();
  for (let i = 1; i + 1 < tokens.length && swaps.length < max; i++) {
    const [a, x, c] = [tokens[i - 1] as string, tokens[i] as string, tokens[i + 1] as string];
    const expected = phrases.middles.get(`${a} ${c}`);
    if (expected === undefined || expected.has(x) || phrases.trigrams.has(`${a} ${x} ${c}`)) continue;
    // The swapped word must carry content, and so must a word around it: "of the" around anything is no phrase.
    if (!carries(x) || !(phrases.words.has(a) || phrases.words.has(c))) continue;
    // A one-letter neighbour is a variable ("u 1 lambda": a subscript, not a figure of the task).
    if (/^\p{L}$/u.test(a) || /^\p{L}$/u.test(c)) continue;
    // A swap only between words of the same kind: a figure for a figure, a word for a word.
    const same = [...expected].find((y) => isFigure(y) === isFigure(x) && carries(y) && !sameStem(x, y) && !MARKUP.has(y) && !MARKUP.has(x));
    if (same === undefined) continue;
    const said = `${a} ${x} ${c}`;
    if (seen.has(said)) continue;
    seen.add(said);
    swaps.push({ said, task: `${a} ${same} ${c}`, figure: isFigure(x) });
  }
  return swaps;
}

/** Each step that swaps a phrase of the task, in step order. */
export function stepsSwappingTask(goal: string | null, steps: Step[]): { step: Step; swaps: TaskSwap[] }[] {
  if (goal === null || wordTokens(goal).length < 4) return [];
  const phrases = taskPhrases(goal);
  const out: { step: Step; swaps: TaskSwap[] }[] = [];
  for (const s of steps) {
    const swaps = taskSwaps(phrases, `${s.outputText ?? ""}`);
    if (swaps.length > 0) out.push({ step: s, swaps });
  }
  return out;
}
