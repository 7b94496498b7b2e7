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

/** A doc's distinct features in first-seen order (as `features` lists them), with their counts. */
interface SparseDoc {
  ids: number[];
  counts: number[];
}

/**
 * cosinesToFirst on interned features: the same features as `features` (word n-grams `w:…`,
 * character n-grams `c:…`), so the same weights and cosines, without building their strings for
 * every occurrence: each distinct word gets its unigram and character-gram ids once, each distinct
 * bigram its id once. Counts and weights live in arrays indexed by feature id (no Map per doc); sums
 * run in the same order as on Maps (a doc's features in first-seen order), so results are bit-identical.
 */
function sparseCosinesToFirst(texts: string[], wordNs: number[], charNs: number[]): number[] {
  const ids = new Map<string, number>();
  const idOf = (feature: string): number => {
    let id = ids.get(feature);
    if (id === undefined) ids.set(feature, (id = ids.size));
    return id;
  };
  /** A distinct word: its text, its unigram id and its character-gram ids. */
  interface Word {
    text: string;
    word: number;
    chars: number[];
  }
  const byWord = new Map<string, Word>();
  const wordOf = (w: string): Word => {
    let hit = byWord.get(w);
    if (hit === undefined) {
      const padded = ` ${w} `;
      const chars: number[] = [];
      for (const n of charNs) for (let i = 0; i + n <= padded.length; i++) chars.push(idOf(`c:${padded.slice(i, i + n)}`));
      hit = { text: w, word: idOf(`w:${w}`), chars };
      byWord.set(w, hit);
    }
    return hit;
  };
  const bigrams = new Map<number, Map<number, number>>();
  const bigramOf = (a: Word, b: Word): number => {
    let row = bigrams.get(a.word);
    if (row === undefined) bigrams.set(a.word, (row = new Map()));
    let id = row.get(b.word);
    if (id === undefined) row.set(b.word, (id = idOf(`w:${a.text} ${b.text}`)));
    return id;
  };
  // slot[id] = 1 + position of id in the doc being built (0: not in it); reset after each doc. Grown as ids are added.
  let slot = new Int32Array(1024);
  const docOf = (text: string): SparseDoc => {
    const doc: SparseDoc = { ids: [], counts: [] };
    const add = (id: number): void => {
      if (id >= slot.length) {
        const grown = new Int32Array(Math.max(2 * slot.length, id + 1));
        grown.set(slot);
        slot = grown;
      }
      const at = slot[id]!;
      if (at === 0) {
        doc.ids.push(id);
        doc.counts.push(1);
        slot[id] = doc.ids.length;
      } else doc.counts[at - 1]!++;
    };
    const tokens = wordTokens(text);
    // Each token's word looked up once, for its unigram, its bigrams and its character grams.
    const words = tokens.map(wordOf);
    for (const n of wordNs) {
      if (n === 1) for (const w of words) add(w.word);
      else if (n === 2) for (let i = 0; i + 2 <= words.length; i++) add(bigramOf(words[i]!, words[i + 1]!));
      else for (let i = 0; i + n <= tokens.length; i++) add(idOf(`w:${tokens.slice(i, i + n).join(" ")}`));
    }
    if (charNs.length > 0) for (const w of words) for (const id of w.chars) add(id);
    for (const id of doc.ids) slot[id] = 0;
    return doc;
  };
  const byText = new Map<string, SparseDoc>();
  /** How many of the texts each distinct doc stands for: its features' document frequency counts it that often. */
  const copies = new Map<SparseDoc, number>();
  const docs = texts.map((t) => {
    let doc = byText.get(t);
    if (doc === undefined) byText.set(t, (doc = docOf(t)));
    copies.set(doc, (copies.get(doc) ?? 0) + 1);
    return doc;
  });
  const df = new Float64Array(ids.size);
  for (const [doc, k] of copies) for (const id of doc.ids) df[id]! += k;
  const n = docs.length;
  const idf = new Float64Array(df.length);
  for (let id = 0; id < df.length; id++) idf[id] = Math.log((1 + n) / (1 + df[id]!)) + 1;
  /** Weights aligned with doc.ids, and their L2 norm. */
  const weigh = (doc: SparseDoc): { w: number[]; norm: number } => {
    const w = new Array<number>(doc.ids.length);
    let sq = 0;
    for (let i = 0; i < doc.ids.length; i++) {
      const x = (1 + Math.log(doc.counts[i]!)) * idf[doc.ids[i]!]!;
      w[i] = x;
      sq += x * x;
    }
    return { w, norm: Math.sqrt(sq) };
  };
  const first = docs[0];
  if (first === undefined) return [];
  const q = weigh(first);
  // The first doc's weights by feature id (0 where absent: every weight is > 0, and adding 0 changes no sum).
  const qById = new Float64Array(ids.size);
  first.ids.forEach((id, i) => (qById[id] = q.w[i]!));
  const dById = new Float64Array(ids.size);
  // Equal texts share a doc, hence a cosine.
  const cosines = new Map<SparseDoc, number>();
  const cosineToFirst = (doc: SparseDoc): number => {
    const d = weigh(doc);
    if (q.norm === 0 || d.norm === 0) return 0;
    let dot = 0;
    // Sum over the smaller doc's features in its order (the first doc's on a tie), as the Map version did.
    if (doc.ids.length < first.ids.length) {
      for (let i = 0; i < doc.ids.length; i++) dot += d.w[i]! * qById[doc.ids[i]!]!;
    } else {
      for (let i = 0; i < doc.ids.length; i++) dById[doc.ids[i]!] = d.w[i]!;
      for (let i = 0; i < first.ids.length; i++) dot += q.w[i]! * dById[first.ids[i]!]!;
      for (const id of doc.ids) dById[id] = 0;
    }
    return dot / (q.norm * d.norm);
  };
  return docs.slice(1).map((doc) => {
    let c = cosines.get(doc);
    if (c === undefined) cosines.set(doc, (c = cosineToFirst(doc)));
    return c;
  });
}
