import { describe, expect, it } from "vitest";
import { checkJudgeConfig, judgeConfigSchema, judgeLimitsOf, judgePolicyDefaultsOf, judgeServiceDefaultOf, loadConfig } from "./index.ts";

const schema = judgeConfigSchema.superRefine(checkJudgeConfig);

describe("judge configuration", () => {
  it("has no service default without a provider, and the policy defaults", () => {
    const config = loadConfig(schema, {});
    expect(judgeServiceDefaultOf(config)).toBeNull();
    expect(judgePolicyDefaultsOf(config)).toEqual({ samplingShare: 0.1, dailyBudgetUsd: 5 });
    expect(judgeLimitsOf(config)).toEqual({ ratePerMinute: 60, concurrency: 4 });
  });
  it("reads the limits per provider endpoint, and refuses a rate or concurrency that is not a positive whole number", () => {
    expect(judgeLimitsOf(loadConfig(schema, { CRUX_JUDGE_RATE_PER_MINUTE: "600", CRUX_JUDGE_CONCURRENCY: "16" }))).toEqual({
      ratePerMinute: 600,
      concurrency: 16,
    });
    expect(() => loadConfig(schema, { CRUX_JUDGE_RATE_PER_MINUTE: "0" })).toThrow(/CRUX_JUDGE_RATE_PER_MINUTE: must be at least 1 judge run per minute/);
    expect(() => loadConfig(schema, { CRUX_JUDGE_RATE_PER_MINUTE: "1.5" })).toThrow(/CRUX_JUDGE_RATE_PER_MINUTE: must be a whole number/);
    expect(() => loadConfig(schema, { CRUX_JUDGE_RATE_PER_MINUTE: "fast" })).toThrow(/CRUX_JUDGE_RATE_PER_MINUTE: must be a whole number/);
    expect(() => loadConfig(schema, { CRUX_JUDGE_CONCURRENCY: "0" })).toThrow(/CRUX_JUDGE_CONCURRENCY: must be at least 1/);
    expect(() => loadConfig(schema, { CRUX_JUDGE_CONCURRENCY: "1000" })).toThrow(/CRUX_JUDGE_CONCURRENCY: must be at most 256/);
  });
  it("reads the provider's usual variables when the CRUX_JUDGE_ ones are unset", () => {
    expect(
      judgeServiceDefaultOf(loadConfig(schema, { CRUX_JUDGE_PROVIDER: "anthropic", CRUX_JUDGE_MODEL: "claude-sonnet-4-5", ANTHROPIC_API_KEY: "a-key" })),
    ).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseUrl: null,
      apiKey: "a-key",
    });
    const openai = loadConfig(schema, {
      CRUX_JUDGE_PROVIDER: "openai",
      CRUX_JUDGE_MODEL: "llama3.1:8b",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      ANTHROPIC_API_KEY: "not-this-one",
    });
    expect(judgeServiceDefaultOf(openai)).toEqual({ provider: "openai", model: "llama3.1:8b", baseUrl: "http://127.0.0.1:11434/v1", apiKey: null });
    const own = loadConfig(schema, {
      CRUX_JUDGE_PROVIDER: "openai",
      CRUX_JUDGE_MODEL: "m",
      CRUX_JUDGE_BASE_URL: "http://h:1/v1",
      OPENAI_BASE_URL: "http://other/v1",
      CRUX_JUDGE_API_KEY: "k",
      OPENAI_API_KEY: "o",
    });
    expect(judgeServiceDefaultOf(own)).toMatchObject({ baseUrl: "http://h:1/v1", apiKey: "k" });
  });
  it("fails naming the variable: a provider without model, a public endpoint without key, a short secret, a share over 1", () => {
    expect(() => loadConfig(schema, { CRUX_JUDGE_PROVIDER: "openai", OPENAI_API_KEY: "k" })).toThrow(/CRUX_JUDGE_MODEL: is required/);
    expect(() => loadConfig(schema, { CRUX_JUDGE_PROVIDER: "anthropic", CRUX_JUDGE_MODEL: "claude" })).toThrow(
      /CRUX_JUDGE_API_KEY: is required \(or ANTHROPIC_API_KEY\)/,
    );
    expect(() => loadConfig(schema, { CRUX_SECRET_KEY: "short" })).toThrow(/CRUX_SECRET_KEY/);
    expect(() => loadConfig(schema, { CRUX_JUDGE_SAMPLING: "1.5" })).toThrow(/CRUX_JUDGE_SAMPLING/);
    expect(() => loadConfig(schema, { CRUX_JUDGE_PROVIDER: "cohere" })).toThrow(/CRUX_JUDGE_PROVIDER/);
  });
});
