import { describe, expect, it } from "vitest";
import { inputHash, judgeInputHash, scoreInputHash, scoreInputHasher, scoringVersion, spanSetHash, type ScoreInputs } from "../../src/index.ts";

const config: ScoreInputs["config"] = {
  prices: [],
  agentContracts: [],
  handoffContracts: [],
  milestoneSet: null,
  configuredBaseline: null,
  coordinationWeights: null,
  repetitionK: null,
};
const base: ScoreInputs = { spanSetHash: spanSetHash(["a", "b"]), outcomeOverride: null, config, baselineRun: null };

describe("input hashes", () => {
  it("hash a span set by its ids, whatever their order", () => {
    expect(spanSetHash(["b", "a", "c"])).toBe(spanSetHash(["c", "b", "a"]));
    expect(spanSetHash(["a", "b"])).not.toBe(spanSetHash(["a", "b", "c"]));
    expect(spanSetHash(["a", "b"])).toMatch(/^[0-9a-f]{64}$/);
  });

  it("hash inputs canonically: key order does not matter, values and bigints do", () => {
    expect(inputHash({ a: 1, b: { c: [1, 2], d: "x" } })).toBe(inputHash({ b: { d: "x", c: [1, 2] }, a: 1 }));
    expect(inputHash({ a: [1, 2] })).not.toBe(inputHash({ a: [2, 1] }));
    expect(inputHash({ n: 5n })).toBe(inputHash({ n: "5" }));
    expect(inputHash({ a: 1, gone: undefined })).toBe(inputHash({ a: 1 }));
  });

  it("change the score input hash with the span set, the outcome, the config and the baseline", () => {
    const h = scoreInputHash(base);
    expect(scoreInputHash({ ...base })).toBe(h);
    expect(scoreInputHash({ ...base, spanSetHash: spanSetHash(["a"]) })).not.toBe(h);
    expect(scoreInputHash({ ...base, outcomeOverride: { success: false } })).not.toBe(h);
    expect(scoreInputHash({ ...base, config: { ...config, repetitionK: 4 } })).not.toBe(h);
    expect(scoreInputHash({ ...base, baselineRun: { tokens: 10, costUsd: null, runs: 1 } })).not.toBe(h);
  });

  it("hash score inputs as inputHash does their canonical JSON, with the configuration's JSON made once per hasher", () => {
    const full: ScoreInputs = {
      spanSetHash: spanSetHash(["x"]),
      outcomeOverride: { success: true, taskId: 't"1', variant: "b" },
      config: { ...config, repetitionK: 4, coordinationWeights: { handoff: 0.5, "z\u00e9": 1 } as never },
      baselineRun: { tokens: 10, costUsd: 0.25, runs: 3 },
    };
    for (const inputs of [base, full, { ...full, outcomeOverride: null }, { ...full, baselineRun: null }]) {
      const expected = inputHash({ stage: "score", scoringVersion, ...inputs });
      expect(scoreInputHash(inputs)).toBe(expected);
      expect(scoreInputHasher(inputs.config, inputs.baselineRun)(inputs.spanSetHash, inputs.outcomeOverride)).toBe(expected);
    }
    // A member left undefined is dropped, as canonical JSON drops it.
    const loose = { ...base, outcomeOverride: undefined as unknown as null };
    expect(scoreInputHash(loose)).toBe(inputHash({ stage: "score", scoringVersion, ...loose }));
    const hasher = scoreInputHasher(full.config, full.baselineRun);
    expect(hasher(spanSetHash(["y"]), null)).toBe(scoreInputHash({ ...full, spanSetHash: spanSetHash(["y"]), outcomeOverride: null }));
  });

  it("hash a judge's inputs over what it declared only", () => {
    const before = { spanSetHash: spanSetHash(["a"]), outcomeOverride: null };
    const outcomeChanged = { ...before, outcomeOverride: { success: true } };
    const spansChanged = { ...before, spanSetHash: spanSetHash(["a", "b"]) };
    expect(judgeInputHash(["spans"], outcomeChanged)).toBe(judgeInputHash(["spans"], before));
    expect(judgeInputHash(["spans"], spansChanged)).not.toBe(judgeInputHash(["spans"], before));
    expect(judgeInputHash(["spans", "outcome"], outcomeChanged)).not.toBe(judgeInputHash(["spans", "outcome"], before));
    expect(judgeInputHash(["outcome", "spans"], before)).toBe(judgeInputHash(["spans", "outcome"], before));
  });

  it("hash the settings a judge reads (its rubric) when it has any; none keeps the hash", () => {
    const before = { spanSetHash: spanSetHash(["a"]), outcomeOverride: null };
    expect(judgeInputHash(["spans"], { ...before, settings: null })).toBe(judgeInputHash(["spans"], before));
    const graded = judgeInputHash(["spans"], { ...before, settings: "cites its sources" });
    expect(graded).not.toBe(judgeInputHash(["spans"], before));
    expect(judgeInputHash(["spans"], { ...before, settings: "under 500 words" })).not.toBe(graded);
  });
});
