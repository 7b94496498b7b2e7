/** Windowing a long trace into the model's context (src/window.ts), alone and through a judge. */
import type { JudgeVerdictResult } from "@crux/contracts";
import { prepareTrace, runTagsOf } from "@crux/core";
import { startMockLlmServer } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { createJudgeSuite } from "../src/index.ts";
import { stepViews } from "../src/steps.ts";
import { estimateTokens, FIELD_CHARS, ranges, windowSteps } from "../src/window.ts";
import { longTrace } from "./long-trace.ts";
import { checklistReply } from "./replies.ts";

describe("windowSteps", () => {
  it("keeps everything when it fits", () => {
    const w = windowSteps(stepViews(prepareTrace(longTrace(5, 50))), 10_000);
    expect(w.omitted).toEqual([]);
    for (let i = 0; i < 5; i++) expect(w.text).toContain(`[${i}] worker · model call`);
  });

  it("cuts long fields and says so", () => {
    const w = windowSteps(stepViews(prepareTrace(longTrace(3, FIELD_CHARS + 500))), 100_000);
    expect(w.omitted).toEqual([`text cut to ${FIELD_CHARS} characters per field in steps 0-2`]);
    expect(w.text).toContain("more characters cut]");
  });

  it("summarizes from the middle out, then leaves out, within the budget; the ends stay whole", () => {
    const views = stepViews(prepareTrace(longTrace(100, 800)));
    const full = windowSteps(views, 1e9);
    const w = windowSteps(views, 6_000);
    expect(full.tokens).toBeGreaterThan(20_000);
    expect(w.tokens).toBeLessThanOrEqual(6_000);
    expect(w.text).toContain(`step 0 says ${"x".repeat(800)}`);
    expect(w.text).toContain(`step 99 says ${"x".repeat(800)}`);
    expect(w.text).not.toContain(`step 50 says`);
    expect(w.omitted.some((o) => /^steps .* shown as one-line summaries$/.test(o))).toBe(true);
    expect(w.omitted.some((o) => /^steps .* left out$/.test(o))).toBe(true);
    expect(w.text).toMatch(/\[steps \d+-\d+ left out: \d+ steps\]/);
  });

  it("never demotes protected steps", () => {
    const views = stepViews(prepareTrace(longTrace(60, 800)));
    const w = windowSteps(views, 3_000, (i) => i >= 28 && i <= 31);
    for (const i of [28, 29, 30, 31]) expect(w.text).toContain(`step ${i} says ${"x".repeat(800)}`);
  });

  it("writes ranges compactly", () => {
    expect(ranges([1, 2, 3, 5, 7, 8])).toBe("1-3, 5, 7-8");
  });
});

describe("a judge on a long trace", () => {
  it("fits its prompt into contextTokens and says in the verdict what it left out", async () => {
    const mock = await startMockLlmServer([{ text: checklistReply() }]);
    try {
      const spans = longTrace(200, 1_000);
      const trajectories = prepareTrace(spans);
      const judge = createJudgeSuite(
        { provider: "anthropic", model: "claude-haiku-5-5", baseUrl: mock.url, apiKey: "k" },
        { kinds: ["mast-checklist"], contextTokens: 12_000, maxOutputTokens: 2_000 },
      ).judges[0]!;
      const run = await judge.run({ spans, trajectories, runTags: runTagsOf(trajectories, null) });
      const result = run.result as JudgeVerdictResult;
      expect(run.status).toBe("succeeded");
      expect(estimateTokens(mock.requests[0]!.prompt)).toBeLessThanOrEqual(12_000 * 0.9 - 2_000);
      expect(result.omitted.length).toBeGreaterThan(0);
      expect(result.omitted.join("; ")).toMatch(/left out/);
    } finally {
      await mock.close();
    }
  });
});
