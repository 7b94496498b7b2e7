/**
 * Citation checks (docs/judges.md §4): a judge must cite a step that exists
 * and quote text that is in it. Quotes are compared after folding case,
 * typographic quotes and whitespace; "..." inside a quote marks an elision,
 * and each part must then appear, in order.
 */
import type { StepView } from "./steps.ts";
import { stepText } from "./steps.ts";

const MIN_QUOTE_CHARS = 3;

function fold(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f]/g, '"')
    .replace(/\s+/g, " ")
    .trim();
}

/** Whether `quote` occurs in `text` (folded; "..." / "…" separate parts that must occur in order). */
export function quoteOccursIn(quote: string, text: string): boolean {
  const haystack = fold(text);
  const parts = fold(quote)
    .replace(/^["']+|["']+$/g, "")
    .split(/\.\.\.|…/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.join("").length < MIN_QUOTE_CHARS) return false;
  let from = 0;
  for (const part of parts) {
    const at = haystack.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return true;
}

export type CitationCheck = { ok: true; step: StepView } | { ok: false; reason: string };

/** The cited step, when it exists and holds the quote; else why the citation is rejected. */
export function checkCitation(steps: readonly StepView[], stepIndex: number | null, quote: string | null): CitationCheck {
  if (stepIndex === null) return { ok: false, reason: "no step cited" };
  const step = steps[stepIndex];
  if (!Number.isInteger(stepIndex) || step === undefined)
    return { ok: false, reason: `step ${stepIndex} does not exist (${steps.length === 0 ? "the trace has no steps" : `the steps are 0-${steps.length - 1}`})` };
  if (quote === null || quote.trim() === "") return { ok: false, reason: `no quote from step ${stepIndex}` };
  if (!quoteOccursIn(quote, stepText(step)))
    return { ok: false, reason: `the quote is not in step ${stepIndex}'s text: ${JSON.stringify(quote.slice(0, 120))}` };
  return { ok: true, step };
}
