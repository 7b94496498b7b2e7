import { describe, expect, it } from "vitest";
import type { LabelledLog } from "../src/logs.ts";
import { calibration, emptyTally, executorSpeakers, floorPicks, tallyPick } from "../src/score.ts";

const turn = (agent: string, content: string, error = false) => ({ agent, role: null, content, error });
const log: LabelledLog = {
  id: "1",
  subset: "all",
  goal: "g",
  turns: [
    turn("planner", "Plan: count the rows."),
    turn("coder", "```python\nprint(len(rows))\n```"),
    turn("runner", "exitcode: 1 (execution failed)\nCode output: NameError", true),
    turn("coder", "```python\nrows = []\nprint(len(rows))\n```"),
    turn("runner", "exitcode: 0 (execution succeeded)\nCode output: 0"),
  ],
  labelAgents: ["coder"],
  labelStep: 1,
  unmatchedLabels: [],
};

describe("content-blind floors", () => {
  it("read only who spoke when, what shape each turn has and which the log records as failed", () => {
    expect(executorSpeakers(log.turns)).toEqual(new Set(["runner"]));
    const f = floorPicks(log);
    expect(f["random speaker (expected)"]).toEqual({ agent: 1 / 3, step: 1 / 5, top3: 1 });
    expect(f["last speaker"]).toEqual({ agent: "runner", turn: 4 });
    expect(f["last non-executor turn"]).toEqual({ agent: "coder", turn: 3 });
    // coder and runner speak twice; the tie goes to the first to speak, at its first turn.
    expect(f["most frequent speaker"]).toEqual({ agent: "coder", turn: 1 });
    expect(f["second turn"]).toEqual({ agent: "coder", turn: 1 });
    expect(f["first recorded error"]).toEqual({ agent: "runner", turn: 2 });
    expect(floorPicks({ ...log, turns: log.turns.map((t) => ({ ...t, error: false })) })["first recorded error"]).toBeNull();
  });

  it("tally agent, step and top-3 hits; a missing pick is wrong and counted unanswered; expected values add up as fractions", () => {
    const t = emptyTally();
    tallyPick(t, log, { agent: "Coder", turn: 1, top3: ["coder"] });
    tallyPick(t, log, { agent: "planner", turn: 0, top3: ["planner", "coder"] });
    tallyPick(t, log, null);
    tallyPick(t, log, { agent: 0.5, step: 0.25, top3: 1 });
    expect(t).toEqual({ logs: 4, agentRight: 1.5, stepLogs: 4, stepRight: 1.25, top3Logs: 3, top3Right: 3, unanswered: 1 });
  });

  it("calibration bins rank-1 picks by stated confidence", () => {
    expect(
      calibration([
        { log, pick: { agent: "coder", turn: 1, confidence: 0.62 } },
        { log, pick: { agent: "runner", turn: 2, confidence: 0.65 } },
        { log, pick: { agent: "coder", turn: 3, confidence: 0.31 } },
      ]),
    ).toEqual([
      { from: 0.3, picks: 1, agentRight: 1, stepRight: 0, stepLogs: 1 },
      { from: 0.6, picks: 2, agentRight: 1, stepRight: 1, stepLogs: 2 },
    ]);
  });
});
