import { describe, expect, it } from "vitest";
import { cosine, createTfidfEmbedder, scoreGoalDrift, type Embedder } from "../../src/index.ts";
import { clean } from "../trajectory/fixtures.ts";

const texts = [
  "Write a report on solar panel efficiency in Germany",
  "German solar panels average 20% efficiency (Fraunhofer ISE)",
  "German solar panels average 20% efficiency (Fraunhofer ISE)",
  "banana bread recipe",
  "",
  "solar solar solar",
];

describe("TF-IDF sparse fast path (used by scoreTrace for goal drift)", () => {
  it("gives the same cosines as the dense vectors", () => {
    const embedder = createTfidfEmbedder();
    const [first, ...rest] = embedder.embed(texts);
    const dense = rest.map((v) => cosine(first ?? [], v));
    const sparse = embedder.cosinesToFirst?.(texts) ?? [];
    expect(sparse).toHaveLength(texts.length - 1);
    sparse.forEach((c, i) => expect(c).toBeCloseTo(dense[i] as number, 12));
    expect(sparse[3]).toBe(0); // empty text
  });

  it("gives the same cosines on repeated words, bigrams and non-ASCII text (interned features)", () => {
    const embedder = createTfidfEmbedder();
    const many = [
      "Über die Solarzellen-Effizienz in München berichten",
      "über solarzellen effizienz münchen 😀 日本語のテキスト",
      "a b a b a b c",
      "a b c d e f g a b",
      "naïve café résumé naïve café",
      "日本語のテキスト 😀😀 emoji",
    ];
    const [first, ...rest] = embedder.embed(many);
    const sparse = embedder.cosinesToFirst?.(many) ?? [];
    rest.forEach((v, i) => expect(sparse[i]).toBeCloseTo(cosine(first ?? [], v), 12));
    expect(sparse.some((c) => c > 0.1)).toBe(true);
  });

  it("leaves goal drift unchanged against a dense-only embedder", () => {
    const tfidf = createTfidfEmbedder();
    const denseOnly: Embedder = { embed: (t) => tfidf.embed(t) };
    const fast = scoreGoalDrift(clean());
    const slow = scoreGoalDrift(clean(), { embedder: denseOnly });
    expect(fast.drift).not.toBeNull();
    expect(fast.drift as number).toBeCloseTo(slow.drift as number, 12);
    fast.perStep.forEach((p, i) => expect(p.drift).toBeCloseTo(slow.perStep[i]?.drift as number, 12));
  });
});
