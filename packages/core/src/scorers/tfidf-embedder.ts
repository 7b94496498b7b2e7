/**
 * Local lexical embedder: TF-IDF over word uni/bigrams and character n-grams
 * (inside word boundaries), fitted on the texts of each call so the vectors
 * of one call share a vocabulary. Sublinear tf, smoothed idf, L2-normalized.
 */
import { wordTokens } from "./text.ts";

/** Turns texts into vectors; goal drift compares turns to the goal by cosine. */
export interface Embedder {
  embed(texts: string[]): number[][];
  /** Optional fast path: the cosine of every text after the first to the first (same values as embed + cosine). */
  cosinesToFirst?(texts: string[]): number[];
}

export interface TfidfOptions {
  /** Word n-gram sizes. Default [1, 2]. */
  wordNgrams?: number[];
  /** Character n-gram sizes. Default [3, 4]. */
  charNgrams?: number[];
}

function features(text: string, wordNs: number[], charNs: number[], charGramsOf: (word: string) => string[]): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (f: string): void => {
    counts.set(f, (counts.get(f) ?? 0) + 1);
  };
  const words = wordTokens(text);
  for (const n of wordNs) {
    if (n === 1) for (const w of words) add(`w:${w}`);
    else for (let i = 0; i + n <= words.length; i++) add(`w:${words.slice(i, i + n).join(" ")}`);
  }
  if (charNs.length > 0) for (const word of words) for (const g of charGramsOf(word)) add(g);
  return counts;
}

/** Character n-grams of a word (padded with spaces), memoized per embed call: traces repeat their words a lot. */
function charGramCache(charNs: number[]): (word: string) => string[] {
  const cache = new Map<string, string[]>();
  return (word) => {
    let grams = cache.get(word);
    if (grams !== undefined) return grams;
    grams = [];
    const padded = ` ${word} `;
    for (const n of charNs) for (let i = 0; i + n <= padded.length; i++) grams.push(`c:${padded.slice(i, i + n)}`);
    cache.set(word, grams);
    return grams;
  };
}

export function createTfidfEmbedder(options: TfidfOptions = {}): Embedder {
  const wordNs = options.wordNgrams ?? [1, 2];
  const charNs = options.charNgrams ?? [3, 4];
  /** Features of every text (computed once per distinct text) and document frequencies. */
  const fit = (texts: string[]): { docs: Map<string, number>[]; df: Map<string, number> } => {
    const byText = new Map<string, Map<string, number>>();
    const charGramsOf = charGramCache(charNs);
    const docs = texts.map((t) => {
      let doc = byText.get(t);
      if (doc === undefined) {
        doc = features(t, wordNs, charNs, charGramsOf);
        byText.set(t, doc);
      }
      return doc;
    });
    const df = new Map<string, number>();
    for (const doc of docs) for (const f of doc.keys()) df.set(f, (df.get(f) ?? 0) + 1);
    return { docs, df };
  };
  const weightOf = (count: number, df: number, n: number): number => (1 + Math.log(count)) * (Math.log((1 + n) / (1 + df)) + 1);
  return {
    embed(texts: string[]): number[][] {
      const { docs, df } = fit(texts);
      const vocab = [...df.keys()].sort();
      const index = new Map(vocab.map((f, i) => [f, i]));
      const n = docs.length;
      return docs.map((doc) => {
        const v = new Array<number>(vocab.length).fill(0);
        for (const [f, count] of doc) {
          const i = index.get(f) as number;
          v[i] = weightOf(count, df.get(f) ?? 0, n);
        }
        const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
        return norm === 0 ? v : v.map((x) => x / norm);
      });
    },
    // Same cosines as embed() + cosine(), on sparse vectors: dense vectors cost texts × vocabulary,
    // which made goal drift quadratic in the trace size (2,000-span traces).
    cosinesToFirst(texts: string[]): number[] {
      const { docs, df } = fit(texts);
      const n = docs.length;
      const weighted = new Map<Map<string, number>, { w: Map<string, number>; norm: number }>();
      const weigh = (doc: Map<string, number>): { w: Map<string, number>; norm: number } => {
        let hit = weighted.get(doc);
        if (hit !== undefined) return hit;
        const w = new Map<string, number>();
        let sq = 0;
        for (const [f, count] of doc) {
          const x = weightOf(count, df.get(f) ?? 0, n);
          w.set(f, x);
          sq += x * x;
        }
        hit = { w, norm: Math.sqrt(sq) };
        weighted.set(doc, hit);
        return hit;
      };
      const first = docs[0];
      if (first === undefined) return [];
      const q = weigh(first);
      return docs.slice(1).map((doc) => {
        const d = weigh(doc);
        if (q.norm === 0 || d.norm === 0) return 0;
        const [small, large] = d.w.size < q.w.size ? [d.w, q.w] : [q.w, d.w];
        let dot = 0;
        for (const [f, x] of small) {
          const y = large.get(f);
          if (y !== undefined) dot += x * y;
        }
        return dot / (q.norm * d.norm);
      });
    },
  };
}
