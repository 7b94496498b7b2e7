/**
 * Local lexical embedder: TF-IDF over word uni/bigrams and character n-grams
 * (inside word boundaries), fitted on the texts of each call so the vectors
 * of one call share a vocabulary. Sublinear tf, smoothed idf, L2-normalized.
 */
import type { Embedder } from "./goal-drift.ts";
import { wordTokens } from "./text.ts";

export interface TfidfOptions {
  /** Word n-gram sizes. Default [1, 2]. */
  wordNgrams?: number[];
  /** Character n-gram sizes. Default [3, 4]. */
  charNgrams?: number[];
}

function features(text: string, wordNs: number[], charNs: number[]): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (f: string): void => {
    counts.set(f, (counts.get(f) ?? 0) + 1);
  };
  const words = wordTokens(text);
  for (const n of wordNs) for (let i = 0; i + n <= words.length; i++) add(`w:${words.slice(i, i + n).join(" ")}`);
  for (const word of words) {
    const padded = ` ${word} `;
    for (const n of charNs) for (let i = 0; i + n <= padded.length; i++) add(`c:${padded.slice(i, i + n)}`);
  }
  return counts;
}

export function createTfidfEmbedder(options: TfidfOptions = {}): Embedder {
  const wordNs = options.wordNgrams ?? [1, 2];
  const charNs = options.charNgrams ?? [3, 4];
  return {
    embed(texts: string[]): number[][] {
      const docs = texts.map((t) => features(t, wordNs, charNs));
      const df = new Map<string, number>();
      for (const doc of docs) for (const f of doc.keys()) df.set(f, (df.get(f) ?? 0) + 1);
      const vocab = [...df.keys()].sort();
      const index = new Map(vocab.map((f, i) => [f, i]));
      const n = docs.length;
      return docs.map((doc) => {
        const v = new Array<number>(vocab.length).fill(0);
        for (const [f, count] of doc) {
          const i = index.get(f) as number;
          v[i] = (1 + Math.log(count)) * (Math.log((1 + n) / (1 + (df.get(f) ?? 0))) + 1);
        }
        const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
        return norm === 0 ? v : v.map((x) => x / norm);
      });
    },
  };
}
