/** Lexical helpers shared by scorers: word tokens, content words, overlap. */

const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her his i if in into is it its " +
    "me my no not of on or our she so than that the their them then there these they this to too us was we were what " +
    "when which who will with would you your please just also any all some"
  ).split(" "),
);

export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Words that carry content: not stopwords, at least 3 characters or a number. */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of wordTokens(text)) if (isContentWord(w)) out.add(w);
  return out;
}

function isContentWord(w: string): boolean {
  return !STOPWORDS.has(w) && (w.length >= 3 || /^\p{N}+$/u.test(w));
}

/** Whether `text` has a content word in `words` (contentWords of another text); stops at the first. */
export function sharesContentWord(words: ReadonlySet<string>, text: string): boolean {
  for (const w of wordTokens(text)) if (words.has(w) && isContentWord(w)) return true;
  return false;
}

export function sharedContentWords(a: string, b: string): string[] {
  const wa = contentWords(a);
  const shared: string[] = [];
  for (const w of contentWords(b)) if (wa.has(w)) shared.push(w);
  return shared;
}

/** Whitespace-normalized lowercase text, for "same message" comparisons. */
export function normalizeText(text: string): string {
  // Most texts have only single spaces: then the replace changes nothing, and testing is cheaper than rebuilding the string.
  const collapsed = SPACE_TO_COLLAPSE.test(text) ? text.replace(/\s+/g, " ") : text;
  return collapsed.trim().toLowerCase();
}

/** Whitespace that /\s+/ → " " would change: any whitespace but a space, or two in a row. */
const SPACE_TO_COLLAPSE = /[^\S ]|\s\s/;

/** Rough token count (about 4 characters per token) when no tokenizer is injected. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Jaccard overlap of two texts' content words (1 for equal normalized texts); 0 when either has none. */
export function contentSimilarity(a: string, b: string): number {
  if (normalizeText(a) === normalizeText(b)) return 1;
  const wa = contentWords(a);
  const wb = contentWords(b);
  if (wa.size === 0 || wb.size === 0) return 0;
  let shared = 0;
  for (const w of wb) if (wa.has(w)) shared++;
  return shared / (wa.size + wb.size - shared);
}
