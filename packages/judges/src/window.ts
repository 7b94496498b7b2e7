/**
 * Fitting a trajectory into the judge model's context (docs/judges.md §5).
 * Tokens are estimated at 4 characters each. Every field is first cut to
 * FIELD_CHARS; when the steps still do not fit, steps are shown as one-line
 * summaries, from the middle of the trace outwards (the task's start and its
 * end state matter most), and when even that does not fit, summarized steps
 * are left out, again middle first. The first and last END_STEPS steps are
 * shortened only when nothing else is left to shorten. Protected steps (those a step-by-step
 * judge is examining) always keep their full text. What was cut, summarized
 * or left out is returned in `omitted`, which the verdict stores.
 */
import type { StepView } from "./steps.ts";

export const FIELD_CHARS = 2_000;
/** How much of the end of a tail-only field (a later model call's input) is shown. */
const TAIL_CHARS = 300;
const BRIEF_CHARS = 160;
/** Steps at each end of the trace that keep their full text until nothing else is left to shorten. */
const END_STEPS = 2;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function cut(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  return { text: `${text.slice(0, max)}… [${text.length - max} more characters cut]`, cut: true };
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

function fullRender(view: StepView): { text: string; cut: boolean; tail: boolean } {
  let anyCut = false;
  let tail = false;
  const lines = [view.header];
  for (const f of view.fields) {
    if (f.tailOnly && f.text.length > TAIL_CHARS) {
      lines.push(`  ${f.name} (its last ${TAIL_CHARS} characters): …${oneLine(f.text.slice(-TAIL_CHARS))}`);
      tail = true;
      continue;
    }
    const c = cut(f.text, FIELD_CHARS);
    anyCut ||= c.cut;
    lines.push(`  ${f.name}: ${c.text.replace(/\n/g, "\n    ")}`);
  }
  return { text: lines.join("\n"), cut: anyCut, tail };
}

function briefRender(view: StepView): string {
  const last = view.fields.find((f) => f.name === "output") ?? view.fields.find((f) => f.name === "message") ?? view.fields.at(-1);
  return last === undefined ? `${view.header} (summarized)` : `${view.header} (summarized) ${last.name}: ${cut(oneLine(last.text), BRIEF_CHARS).text}`;
}

/** "3, 5-9, 12" from sorted indexes. */
export function ranges(indexes: readonly number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < indexes.length) {
    let j = i;
    while (j + 1 < indexes.length && indexes[j + 1] === indexes[j]! + 1) j++;
    out.push(i === j ? `${indexes[i]}` : `${indexes[i]}-${indexes[j]}`);
    i = j + 1;
  }
  return out.join(", ");
}

export interface WindowedSteps {
  text: string;
  omitted: string[];
  tokens: number;
}

type Level = "full" | "brief" | "out";

export function windowSteps(views: readonly StepView[], budgetTokens: number, protect: (index: number) => boolean = () => false): WindowedSteps {
  const full = views.map(fullRender);
  const brief = views.map(briefRender);
  const level: Level[] = views.map(() => "full");
  const cost = (i: number) => (level[i] === "full" ? estimateTokens(full[i]!.text) + 1 : level[i] === "brief" ? estimateTokens(brief[i]!) + 1 : 0);
  let total = views.reduce((sum, _, i) => sum + cost(i), 0);
  // Middle first: farthest from both ends; on a tie the later step.
  const order = views
    .map((v, i) => i)
    .filter((i) => !protect(views[i]!.index))
    .sort((a, b) => Math.min(b, views.length - 1 - b) - Math.min(a, views.length - 1 - a) || b - a);
  const isEnd = (i: number) => i < END_STEPS || i >= views.length - END_STEPS;
  const middle = order.filter((i) => !isEnd(i));
  const ends = order.filter(isEnd);
  for (const [next, which] of [
    ["brief", middle],
    ["out", middle],
    ["brief", ends],
    ["out", ends],
  ] as const) {
    for (const i of which) {
      if (total <= budgetTokens) break;
      const before = cost(i);
      level[i] = next;
      total += cost(i) - before;
    }
  }
  const lines: string[] = [];
  for (let i = 0; i < views.length; i++) {
    if (level[i] === "out") {
      let j = i;
      while (j + 1 < views.length && level[j + 1] === "out") j++;
      lines.push(i === j ? `[step ${views[i]!.index} left out]` : `[steps ${views[i]!.index}-${views[j]!.index} left out: ${j - i + 1} steps]`);
      i = j;
    } else lines.push(level[i] === "full" ? full[i]!.text : brief[i]!);
  }
  const text = lines.join("\n");
  const pick = (l: Level) => views.filter((_, i) => level[i] === l).map((v) => v.index);
  const omitted: string[] = [];
  const cutSteps = views.filter((_, i) => level[i] === "full" && full[i]!.cut).map((v) => v.index);
  const tailSteps = views.filter((_, i) => level[i] === "full" && full[i]!.tail).map((v) => v.index);
  if (tailSteps.length > 0)
    omitted.push(`model-call inputs after each agent's first step shown by their last ${TAIL_CHARS} characters in steps ${ranges(tailSteps)}`);
  if (cutSteps.length > 0) omitted.push(`text cut to ${FIELD_CHARS} characters per field in steps ${ranges(cutSteps)}`);
  if (pick("brief").length > 0) omitted.push(`steps ${ranges(pick("brief"))} shown as one-line summaries`);
  if (pick("out").length > 0) omitted.push(`steps ${ranges(pick("out"))} left out`);
  return { text, omitted, tokens: estimateTokens(text) };
}
