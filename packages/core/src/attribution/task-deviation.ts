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
import { contentWords, wordTokens } from "../text/text.ts";

export interface TaskSwap {
  /** What the step said, three words: "the 2021 population". */
  said: string;
  /** What the task says in the same place: "the 2023 population". */
  task: string;
  /** The swapped word is a figure. */
  figure: boolean;
  /** The swapped word and the task's are names (capitalised inside a sentence): "the Prado museum" for "the Louvre museum". */
  name: boolean;
}

interface TaskPhrases {
  trigrams: Set<string>;
  /** "a c" (the words around a middle one) → the middle words the task puts there. */
  middles: Map<string, Set<string>>;
  words: Set<string>;
  names: Set<string>;
}

/** Words written capitalised inside a sentence (not after a sentence's end or a line's start): names, lowercased. */
function namesIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![.!?:]\s*|^\s*|\p{L})\p{Lu}\p{Ll}+/gmu)) out.add(m[0].toLowerCase());
  return out;
}

const isFigure = (w: string): boolean => /\p{N}/u.test(w);
/** A word that carries content, or a figure however short ("q3"). */
const carries = (w: string): boolean => isFigure(w) || contentWords(w).size > 0;
/** Inflections are no swap: "earned" for "earn", "numbers" for "number". */
const sameStem = (x: string, y: string): boolean =>
  !isFigure(x) && x.slice(0, Math.max(4, Math.min(x.length, y.length) - 2)) === y.slice(0, Math.max(4, Math.min(x.length, y.length) - 2));
/** Math markup words a restatement may add or change without changing the task. */
const MARKUP = new Set(["text", "mathrm", "frac", "times", "cdot", "left", "right", "quad", "boxed", "dfrac", "sqrt", "mathbf", "textbf"]);

/** Where a phrase's changeable word sits: between its two neighbours, or after or before two of them. */
const SHAPES = [
  { name: "flank", ctx: [-1, 1] },
  { name: "after", ctx: [-2, -1] },
  { name: "before", ctx: [1, 2] },
] as const;

const gram = (tokens: string[], i: number, ctx: readonly number[]): string[] | null => {
  const words = ctx.map((d) => tokens[i + d]);
  return words.every((w) => w !== undefined) ? (words as string[]) : null;
};
const phraseOf = (ctx: readonly number[], context: string[], x: string): string =>
  ctx[0] === -1 ? `${context[0]} ${x} ${context[1]}` : ctx[0] === -2 ? `${context[0]} ${context[1]} ${x}` : `${x} ${context[0]} ${context[1]}`;

function taskPhrases(goal: string): TaskPhrases {
  const tokens = wordTokens(goal);
  const trigrams = new Set<string>();
  const middles = new Map<string, Set<string>>();
  for (let i = 0; i < tokens.length; i++) {
    for (const shape of SHAPES) {
      const context = gram(tokens, i, shape.ctx);
      if (context === null) continue;
      trigrams.add(phraseOf(shape.ctx, context, tokens[i] as string));
      const key = `${shape.name} ${context.join(" ")}`;
      middles.set(key, (middles.get(key) ?? new Set()).add(tokens[i] as string));
    }
  }
  return { trigrams, middles, words: new Set([...contentWords(goal), ...tokens.filter(isFigure)]), names: namesIn(goal) };
}

/** The task phrases a text repeats with one word swapped; at most `max`. */
function taskSwaps(phrases: TaskPhrases, text: string, max = 5): TaskSwap[] {
  const head = text.slice(0, 20_000);
  const tokens = wordTokens(head);
  const names = namesIn(head);
  const derived = derivedFigures(head);
  const fractions = decimalFractions(head);
  // Every phrase of the task the text repeats as the task says it.
  const kept = new Set<string>();
  for (let i = 1; i + 1 < tokens.length; i++) {
    const said = `${tokens[i - 1]} ${tokens[i]} ${tokens[i + 1]}`;
    if (phrases.trigrams.has(said)) kept.add(said);
  }
  const swaps: TaskSwap[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length && swaps.length < max; i++) {
    const x = tokens[i] as string;
    if (!carries(x) || MARKUP.has(x)) continue;
    // A figure the text computed ("3 × 8 = 24") or numbers a list item with ("3. Calculate") is its own work, and
    // a name the task itself says elsewhere is another of the task's people or places: neither changes the task.
    if ((isFigure(x) && derived.has(x)) || phrases.names.has(x)) continue;
    // The digits after a decimal point are part of a figure, not one of their own: "$4.00" says the task's "$4".
    if (isFigure(x) && fractions.has(x)) continue;
    for (const shape of SHAPES) {
      const context = gram(tokens, i, shape.ctx);
      if (context === null) continue;
      const expected = phrases.middles.get(`${shape.name} ${context.join(" ")}`);
      const said = phraseOf(shape.ctx, context, x);
      // A word said twice in a row is markup or a stutter ("**Lyndee** Lyndee"), not a swap.
      if (context.includes(x)) continue;
      if (expected === undefined || expected.has(x) || phrases.trigrams.has(said)) continue;
      // Free text rewords around a kept neighbour pair all the time; only a figure changed there is a changed fact.
      if (shape.name !== "flank" && !isFigure(x)) continue;
      // A word around it must be a word of the task: "of the" around anything is no phrase.
      if (!context.some((w) => phrases.words.has(w))) continue;
      // A word swapped next to a function word is rewording ("the final answer" for "the correct answer"): a
      // changed word is a changed fact only between two words that carry content, or when it is a name put
      // for a name of the task (a rewording keeps names).
      const named = names.has(x) && [...expected].some((y) => phrases.names.has(y));
      if (!isFigure(x) && !named && !context.every(carries)) continue;
      // A one-letter neighbour is a variable ("u 1 lambda": a subscript, not a figure of the task).
      if (context.some((w) => /^\p{L}$/u.test(w))) continue;
      // A swap only between words of the same kind: a figure for a figure, a word for a word.
      const same = [...expected].find(
        (y) => isFigure(y) === isFigure(x) && carries(y) && !sameStem(x, y) && !MARKUP.has(y) && (!named || phrases.names.has(y)),
      );
      if (same === undefined || seen.has(said)) continue;
      // A text that also says the task's own phrase works from the task (derives, compares, corrects a value):
      // only a text that says the variant instead of the task's phrase has changed the task.
      if ([...expected].some((y) => kept.has(phraseOf(shape.ctx, context, y)))) continue;
      seen.add(said);
      swaps.push({ said, task: phraseOf(shape.ctx, context, same), figure: isFigure(x), name: named });
      break;
    }
  }
  return swaps;
}

/**
 * Figures a text worked out itself: the result of a computation ("= 24", "≈ 3.5") and list or heading numbers
 * ("3. Calculate", "### 2)"), as word tokens (the digits before any decimal point).
 */
function derivedFigures(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[=≈]\s*(?:\\[a-z]+\s*|[$({*\s])*-?(\d+)/g)) out.add(m[1] as string);
  for (const m of text.matchAll(/^[\s#*>-]*(\d+)[.)]\s/gm)) out.add(m[1] as string);
  return out;
}

/** The digits after a decimal point ("00" of "4.00", "022" of "6.022"), which word tokens split from their figure. */
function decimalFractions(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\d\.(\d+)/g)) out.add(m[1] as string);
  return out;
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
