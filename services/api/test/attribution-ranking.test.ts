import type { AttributionAccuracy } from "@crux/db";
import { describe, expect, it } from "vitest";
import { rankAttributionMethods } from "../src/routes/attribution-ranking.view.ts";

const code = [
  {
    projectId: "p",
    traceId: "t",
    ord: 0,
    method: "first_tool_error",
    rank: 1,
    agent: "coder",
    stepIndex: 3,
    spanId: "s3",
    reason: "tool failed",
    confidence: 0.9,
  },
];
const judge = { judge: "judge.attribution", method: "all-at-once", agent: "coder", spanId: null, stepIndex: 3, explanation: "the coder" };
const measured = (method: string, source: string, step: number, agent: number): AttributionAccuracy => ({
  method,
  source,
  agent: { n: 10, correct: agent * 10, accuracy: agent },
  step: { n: 10, correct: step * 10, accuracy: step },
  unanswered: 0,
});

describe("attribution method ranking", () => {
  it("ranks by measured step accuracy, then agent accuracy, without a replay", () => {
    const ranked = rankAttributionMethods(code, [judge], [measured("code", "code", 0.5, 0.6), measured("all-at-once", "judge.attribution", 0.7, 0.7)]);
    expect(ranked.map((m) => [m.source, m.rank])).toEqual([
      ["judge.attribution", 1],
      ["code", 2],
    ]);
  });

  it("puts the trace's replay first, even above better-measured methods, with its own measured accuracy", () => {
    const replay = { replayId: "r1", agent: "planner", spanId: null, explanation: "correcting planner alone made 3 of 3 re-runs succeed" };
    const ranked = rankAttributionMethods(
      code,
      [judge],
      [measured("all-at-once", "judge.attribution", 0.9, 0.9), measured("replay", "replay", 0.2, 0.5)],
      replay,
    );
    expect(ranked.map((m) => [m.method, m.rank])).toEqual([
      ["replay", 1],
      ["all-at-once", 2],
      ["code", 3],
    ]);
    expect(ranked[0]).toMatchObject({ source: "replay", measured: true, agent: { accuracy: 0.5 }, pick: { agent: "planner", spanId: null, stepIndex: null } });
    // Unmeasured replay: still first, marked unmeasured.
    expect(rankAttributionMethods(code, [], [], replay)[0]).toMatchObject({ method: "replay", rank: 1, measured: false });
  });
});
