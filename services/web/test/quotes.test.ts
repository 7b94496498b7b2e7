import { describe, expect, it } from "vitest";
import { quotesByStep, splitQuotes, verdictCitations } from "../src/run/quotes.ts";

describe("quotes cited in a step", () => {
  it("reads the well-formed findings of verdict results and groups their quotes by step", () => {
    const citations = verdictCitations([
      {
        findings: [
          { stepIndex: 2, evidence: "rm -rf" },
          { stepIndex: "x", evidence: "bad" },
          { stepIndex: 2, evidence: "rm -rf" },
        ],
      },
      { error: "provider down" },
      null,
      {
        findings: [
          { stepIndex: 0, evidence: "  " },
          { stepIndex: 4, evidence: "budget is $5" },
        ],
      },
    ]);
    expect(citations).toHaveLength(4);
    const byStep = quotesByStep([...citations, { stepIndex: null, evidence: "unplaced" }]);
    expect([...byStep]).toEqual([
      [2, ["rm -rf"]],
      [4, ["budget is $5"]],
    ]);
  });

  it("marks every occurrence of every quote, merging overlaps", () => {
    expect(splitQuotes("abc abc", ["bc"])).toEqual([
      { text: "a", quoted: false },
      { text: "bc", quoted: true },
      { text: " a", quoted: false },
      { text: "bc", quoted: true },
    ]);
    expect(splitQuotes("the budget is $5 today", ["budget is", "is $5"])).toEqual([
      { text: "the ", quoted: false },
      { text: "budget is $5", quoted: true },
      { text: " today", quoted: false },
    ]);
    expect(splitQuotes("nothing here", ["absent"])).toEqual([{ text: "nothing here", quoted: false }]);
  });
});
