/** Quote checks, model families and the judge price table: pure. */
import { normalizedSpan } from "@crux/core/testing";
import { describe, expect, it } from "vitest";
import { quoteOccursIn } from "../src/citations.ts";
import { redact } from "../src/errors.ts";
import { judgeCallCost, modelFamily, selfPreferenceWarning } from "../src/index.ts";
import { isOpenAiReasoningModel } from "../src/provider.ts";

describe("quoteOccursIn", () => {
  const text = "Looks good to me.\nApproved, go  ahead and book it.";
  it("accepts a verbatim quote, across whitespace, case and typographic quotes", () => {
    expect(quoteOccursIn("approved, go ahead", text)).toBe(true);
    expect(quoteOccursIn("“Looks good to me.”", text)).toBe(true);
    expect(quoteOccursIn("me. Approved", text)).toBe(true);
  });
  it("accepts an elision when the parts occur in order, not otherwise", () => {
    expect(quoteOccursIn("Looks good ... book it", text)).toBe(true);
    expect(quoteOccursIn("book it … Looks good", text)).toBe(false);
  });
  it("rejects text not in the step, and quotes too short to mean anything", () => {
    expect(quoteOccursIn("Rejected", text)).toBe(false);
    expect(quoteOccursIn("go", text)).toBe(false);
    expect(quoteOccursIn("...", text)).toBe(false);
  });
});

describe("model families and self-preference", () => {
  it("names the family of common ids, with routing prefixes", () => {
    expect(
      [
        "claude-sonnet-5-5",
        "anthropic/claude-haiku-4-5",
        "gpt-4.1-mini",
        "openai/gpt-6-luna",
        "o4-mini",
        "gemini-2.5-pro",
        "llama3.1:8b",
        "qwen2.5:14b",
        "mistral-large",
        "my-model",
      ].map(modelFamily),
    ).toEqual(["claude", "claude", "gpt", "gpt", "gpt", "gemini", "llama", "qwen", "mistral", null]);
  });
  it("warns only when an agent's model is of the judge's family", () => {
    const spans = [normalizedSpan({ model: "llama3.1:70b" }), normalizedSpan({ model: null })];
    expect(selfPreferenceWarning("claude-sonnet-5-5", spans)).toBeNull();
    expect(selfPreferenceWarning("llama3.3", spans)).toMatch(
      /^the judge model llama3.3 is of the llama family, which this trace's agents use \(llama3.1:70b\)/,
    );
  });
});

describe("judge price table", () => {
  it("prices known models, dated ids included, and leaves unknown ones null", () => {
    expect(judgeCallCost("claude-sonnet-5-5", 1_000_000, 100_000)).toBeCloseTo(2 + 1, 12);
    expect(judgeCallCost("gpt-6-luna-2026-09-22", 2_000_000, 0)).toBeCloseTo(0.2, 12);
    expect(judgeCallCost("claude-opus-5-5", 10_000, 1_000)).toBeCloseTo((10_000 * 4 + 1_000 * 20) / 1e6, 12);
    expect(judgeCallCost("llama3.1:8b", 1_000, 1_000)).toBeNull();
  });
});

describe("secrets and model quirks", () => {
  it("redacts the key and key-shaped strings", () => {
    expect(redact("bad key sk-abc123456789 and Bearer my-secret-key-42", "my-secret-key-42")).toBe("bad key [redacted] and Bearer [redacted]");
  });
  it("knows OpenAI's reasoning families", () => {
    expect(["o3", "o4-mini", "gpt-5", "gpt-5.6-luna", "gpt-6-sol", "gpt-4.1", "gpt-4o-mini", "llama3"].map(isOpenAiReasoningModel)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
