import { describe, expect, it } from "vitest";
import { cosine, createTfidfEmbedder, scoreGoalDrift, type Embedder } from "../../src/scorers/index.ts";
import { clean } from "../scorers/fixtures.ts";

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
