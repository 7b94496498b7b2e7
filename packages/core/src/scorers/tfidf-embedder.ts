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
    // which made goal drift quadratic in the trace size (2,000-span traces). Features are interned
    // as integers (sparseCosinesToFirst), so a repeated word costs one lookup, not new strings.
    cosinesToFirst: (texts) => sparseCosinesToFirst(texts, wordNs, charNs),
  };
}

/** A doc's features in first-seen order (as `features` lists them) and their counts. */
interface SparseDoc {
  ids: number[];
  counts: Map<number, number>;
}

/**
 * cosinesToFirst on interned features: the same features as `features` (word n-grams `w:…`,
 * character n-grams `c:…`), so the same weights and cosines, without building their strings for
 * every occurrence: each distinct word gets its unigram and character-gram ids once, each distinct
 * bigram its id once.
 */
function sparseCosinesToFirst(texts: string[], wordNs: number[], charNs: number[]): number[] {
  const ids = new Map<string, number>();
  const idOf = (feature: string): number => {
    let id = ids.get(feature);
    if (id === undefined) ids.set(feature, (id = ids.size));
    return id;
  };
  const byWord = new Map<string, { word: number; chars: number[] }>();
  const wordOf = (w: string) => {
    let hit = byWord.get(w);
    if (hit === undefined) {
      const padded = ` ${w} `;
      const chars: number[] = [];
      for (const n of charNs) for (let i = 0; i + n <= padded.length; i++) chars.push(idOf(`c:${padded.slice(i, i + n)}`));
      hit = { word: idOf(`w:${w}`), chars };
      byWord.set(w, hit);
    }
    return hit;
  };
  const bigrams = new Map<number, Map<number, number>>();
  const bigramOf = (a: string, b: string): number => {
    const [x, y] = [wordOf(a).word, wordOf(b).word];
    let row = bigrams.get(x);
    if (row === undefined) bigrams.set(x, (row = new Map()));
    let id = row.get(y);
    if (id === undefined) row.set(y, (id = idOf(`w:${a} ${b}`)));
    return id;
  };
  const docOf = (text: string): SparseDoc => {
    const doc: SparseDoc = { ids: [], counts: new Map() };
    const add = (id: number): void => {
      const c = doc.counts.get(id);
      if (c === undefined) doc.ids.push(id);
      doc.counts.set(id, (c ?? 0) + 1);
    };
    const words = wordTokens(text);
    for (const n of wordNs) {
      if (n === 1) for (const w of words) add(wordOf(w).word);
      else if (n === 2) for (let i = 0; i + 2 <= words.length; i++) add(bigramOf(words[i]!, words[i + 1]!));
      else for (let i = 0; i + n <= words.length; i++) add(idOf(`w:${words.slice(i, i + n).join(" ")}`));
    }
    if (charNs.length > 0) for (const w of words) for (const id of wordOf(w).chars) add(id);
    return doc;
  };
  const byText = new Map<string, SparseDoc>();
  const docs = texts.map((t) => {
    let doc = byText.get(t);
    if (doc === undefined) byText.set(t, (doc = docOf(t)));
    return doc;
  });
  const df: number[] = [];
  for (const doc of docs) for (const id of doc.ids) df[id] = (df[id] ?? 0) + 1;
  const n = docs.length;
  const idf = df.map((d) => Math.log((1 + n) / (1 + d)) + 1);
  const weighted = new Map<SparseDoc, { w: Map<number, number>; norm: number }>();
  const weigh = (doc: SparseDoc) => {
    let hit = weighted.get(doc);
    if (hit !== undefined) return hit;
    const w = new Map<number, number>();
    let sq = 0;
    for (const id of doc.ids) {
      const x = (1 + Math.log(doc.counts.get(id)!)) * idf[id]!;
      w.set(id, x);
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
    for (const [id, x] of small) {
      const y = large.get(id);
      if (y !== undefined) dot += x * y;
    }
    return dot / (q.norm * d.norm);
  });
}
