/**
 * Group-chat traces whose turns are agent spans with output and nothing below
 * them (no llm or tool spans): the turns are message steps, and every
 * detector reading steps sees them. Each failure is injected into a clean
 * message-only conversation; the clean one stays silent.
 */
import { describe, expect, it } from "vitest";
import { scoreTrace } from "../../src/pipeline/index.ts";
import { redundancyRate } from "../../src/metrics/coordination.ts";
import { scoreGoalDrift } from "../../src/metrics/goal-drift.ts";
import { detectMast } from "../../src/mast/run.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { config, input } from "../pipeline/fixtures.ts";
import { traj } from "../trajectory/fixtures.ts";

const GOAL = "Find the 2023 population of Lyon and cite the INSEE source";
const manager: SpanSpec = {
  id: "mgr",
  op: "agent",
  agent: "group_chat_manager",
  start: 0,
  end: 1000,
  input: GOAL,
  output: "Lyon had 522,250 residents in 2023 (INSEE)",
};
const turn = (id: string, agent: string, at: number, output: string, extra: Partial<SpanSpec> = {}): SpanSpec => ({
  id,
  parent: "mgr",
  op: "agent",
  agent,
  start: at,
  end: at + 5,
  output,
  ...extra,
});

const ask = turn("t1", "orchestrator", 10, "Researcher, find the 2023 population of Lyon with its INSEE source.");
const answer = turn("t2", "researcher", 20, "INSEE estimates the 2023 population of Lyon at 522,250 residents (INSEE 2023 estimate).");
const check = turn("t3", "orchestrator", 30, "Verifier, check the Lyon population figure and its INSEE source.");
const verdict = turn("t4", "verifier", 40, "Checked: the Lyon population figure 522,250 matches the INSEE 2023 source.");
const close = turn("t5", "orchestrator", 50, "Final answer: Lyon had 522,250 residents in 2023 according to INSEE.");
const clean: SpanSpec[] = [manager, ask, answer, check, verdict, close];
const verifierContract = [{ agent: "verifier", role: "verify", isVerifier: true }];
const failed = { success: false };

const modes = (specs: SpanSpec[], options: Parameters<typeof detectMast>[1] = {}) =>
  detectMast(traj(specs), options).findings.map((f) => [f.mode, f.agent, f.spanId]);

describe("turns as steps", () => {
  it("makes each turn a message step with its text, and the manager (which holds the turns) none", () => {
    const t = traj(clean);
    expect(t.steps.map((s) => [s.kind, s.agent, s.spanId])).toEqual([
      ["message", "orchestrator", "t1"],
      ["message", "researcher", "t2"],
      ["message", "orchestrator", "t3"],
      ["message", "verifier", "t4"],
      ["message", "orchestrator", "t5"],
    ]);
    expect(t.steps[1]).toMatchObject({ outputText: answer.output, toolName: null, args: null, tokens: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 } });
    expect(t.agents.find((a) => a.name === "orchestrator")?.steps.map((s) => s.spanId)).toEqual(["t1", "t3", "t5"]);
  });

  it("derives a message from each turn to the next speaker", () => {
    const turns = traj(clean).messages.filter((m) => m.kind === "turn");
    expect(turns.map((m) => [m.from, m.to, m.spanId])).toEqual([
      ["orchestrator", "researcher", "t1"],
      ["researcher", "orchestrator", "t2"],
      ["orchestrator", "verifier", "t3"],
      ["verifier", "orchestrator", "t4"],
    ]);
    // Two turns in a row by one speaker are no message.
    const twice = traj([manager, ask, turn("t1b", "orchestrator", 15, "Also note the source year please."), answer]).messages.filter((m) => m.kind === "turn");
    expect(twice.map((m) => [m.from, m.to, m.spanId])).toEqual([["orchestrator", "researcher", "t1b"]]);
  });

  it("keeps an agent with its own llm or tool spans as those steps, never also a message step", () => {
    const t = traj([
      manager,
      { ...answer, id: "res" },
      { id: "res.llm", parent: "res", op: "llm", model: "gpt-4o", start: 21, end: 23, output: "draft", tokens: { input: 10, output: 5 } },
      turn("t9", "writer", 30, "no child spans", { tokens: { input: 3, output: 4 } }),
      { id: "quiet", parent: "mgr", op: "agent", agent: "silent", start: 40 },
    ]);
    expect(t.steps.map((s) => [s.kind, s.spanId])).toEqual([
      ["llm", "res.llm"],
      ["message", "t9"],
    ]);
    expect(t.messages.some((m) => m.kind === "turn")).toBe(false);
  });

  it("gives a turn the tokens its own span reports, and none otherwise", () => {
    const record = scoreTrace(input([manager, ask, turn("t2", "researcher", 20, answer.output as string, { tokens: { input: 30, output: 12 } })]));
    const steps = record.trajectories.flatMap((a) => a.steps).sort((a, b) => a.index - b.index);
    expect(steps.map((s) => [s.kind, s.spanId, s.inputTokens, s.outputTokens])).toEqual([
      ["message", "t1", 0, 0],
      ["message", "t2", 30, 12],
    ]);
    expect(record.totals.inputTokens).toBe(30);
  });
});

describe("detectors on a message-only trace", () => {
  it("stay silent on a clean conversation, with or without a verifier contract", () => {
    expect(modes(clean)).toEqual([]);
    expect(modes(clean, { agentContracts: verifierContract, outcomeSuccess: true })).toEqual([]);
  });

  it("FM-1.3: the same agent's near-identical consecutive turns", () => {
    const again = (id: string, at: number, text: string) => turn(id, "researcher", at, text);
    const specs = [
      manager,
      ask,
      again("r1", 20, "Lyon had about 516,000 inhabitants in 2021 according to INSEE."),
      turn("o2", "orchestrator", 30, "We need the 2023 figure specifically, check the latest INSEE release."),
      again("r2", 40, "Lyon had about 516,000 inhabitants in 2021 according to INSEE!"),
      turn("o3", "orchestrator", 50, "Still the 2021 number. Search the INSEE 2023 estimates."),
      again("r3", 60, "According to INSEE, Lyon had about 516,000 inhabitants in 2021."),
    ];
    expect(modes(specs)).toEqual([["FM-1.3", "researcher", "r3"]]);
    // Two repeats are below k = 3; a changed turn ends the run.
    expect(modes(specs.slice(0, 6))).toEqual([]);
    expect(modes([...specs.slice(0, 6), again("r3", 60, "INSEE 2023 estimate: Lyon has 522,250 residents.")])).toEqual([]);
  });

  it("FM-2.5: a turn that shares nothing with the turn it answers", () => {
    const offTopic = turn("t2", "researcher", 20, "Paris weather today is sunny with mild winds.");
    expect(modes([manager, ask, offTopic])).toEqual([["FM-2.5", "researcher", "t2"]]);
    // Directed: the manager's two nested invocations and the one turn message.
    expect(detectMast(traj([manager, ask, offTopic])).ignoredInput).toMatchObject({ directed: 3, ignored: 1 });
  });

  it("FM-1.5: a run capped on max turns cites the last turn; a ping-pong of unchanged turns is a livelock", () => {
    const capped = [{ ...manager, content: { endReasons: [{ key: "crux.end_reason", value: "max_turns" }] } }, ask, answer];
    const found = detectMast(traj(capped)).findings;
    expect(found.map((f) => [f.mode, f.spanId, f.stepIndex])).toEqual([["FM-1.5", "mgr", 1]]);

    const nudge = "Researcher, send the Lyon figure now please.";
    const stall = "I am still looking for the Lyon figure right now.";
    const pingPong = [
      manager,
      turn("p1", "orchestrator", 10, nudge),
      turn("p2", "researcher", 20, stall),
      turn("p3", "orchestrator", 30, nudge),
      turn("p4", "researcher", 40, stall),
    ];
    expect(modes(pingPong)).toEqual([["FM-1.5", "orchestrator", "p3"]]);
    expect(detectMast(traj(pingPong)).findings[0]?.evidence).toContain("3 turns back and forth");
  });

  it("FM-3.3 and FM-3.2: a verifier's turn is a verifier step", () => {
    const approves = turn("t4", "verifier", 40, "Approved: the Lyon figure looks good.");
    expect(modes([manager, ask, answer, check, approves, close], { agentContracts: verifierContract, outcomeSuccess: false })).toEqual([
      ["FM-3.3", "verifier", "t4"],
    ]);
    // A verdict attribute on the verifier's turn span is read first.
    const verdictTurn = turn("t4", "verifier", 40, "Checked the Lyon figure.", { content: { verdicts: [{ key: "crux.verdict", value: "pass" }] } });
    const byVerdict = detectMast(traj([manager, ask, answer, check, verdictTurn, close]), { agentContracts: verifierContract, outcomeSuccess: false }).findings;
    expect(byVerdict.map((f) => [f.mode, f.spanId, f.confidence])).toEqual([["FM-3.3", "t4", 0.9]]);
    // The verifier never speaks after the researcher's answer (a run of the contracted system: the group chat manager is named too).
    const system = [{ agent: "group_chat_manager", role: "lead" }, ...verifierContract];
    expect(modes([manager, ask, answer, close], { agentContracts: system })).toEqual([["FM-3.2", "researcher", "t2"]]);
    // A run none of whose agents a contract names is not checked against them.
    expect(modes([manager, ask, answer, close], { agentContracts: verifierContract })).toEqual([]);
  });

  it("goal drift reads the turns: an off-topic turn drifts more than an on-topic one", () => {
    const onTopic = scoreGoalDrift(traj(clean));
    const off = scoreGoalDrift(traj([manager, ask, turn("t2", "researcher", 20, "Paris weather today is sunny with mild winds.")]));
    expect(onTopic.perStep.map((p) => p.stepIndex)).toEqual([0, 1, 2, 3, 4]);
    const researcherDrift = (s: typeof off) => s.perAgent.find((a) => a.agent === "researcher")?.drift as number;
    expect(researcherDrift(off)).toBeGreaterThan(researcherDrift(onTopic));
  });
});

describe("attribution of a failed message-only trace", () => {
  const loop = [
    manager,
    ask,
    turn("r1", "researcher", 20, "Lyon had about 516,000 inhabitants in 2021 according to INSEE."),
    turn("o2", "orchestrator", 30, "We need the 2023 figure specifically, check the latest INSEE release."),
    turn("r2", "researcher", 40, "Lyon had about 516,000 inhabitants in 2021 according to INSEE."),
    turn("o3", "orchestrator", 50, "Still the 2021 number. Search the INSEE 2023 estimates for Lyon."),
    turn("r3", "researcher", 60, "Lyon had about 516,000 inhabitants in 2021 according to INSEE."),
    turn("v1", "verifier", 70, "Approved: the Lyon population figure looks good."),
  ];

  it("names the turn the loop started from", () => {
    const rows = scoreTrace(input(loop, { outcomeOverride: failed })).attributions;
    expect(rows[0]).toMatchObject({ rank: 1, method: "suspect", agent: "researcher", spanId: "r1", stepIndex: 1 });
    expect(rows[0]?.reason).toContain("loop start");
    expect(rows[0]?.confidence).toBeGreaterThan(0);
    // The approving turn on a failed run is a suspect too.
    expect(rows.some((r) => r.agent === "verifier" && r.spanId === "v1" && r.reason.includes("approved"))).toBe(true);
  });

  it("names the turn the approved answer came from, and the approving verifier after it, when that is all the conversation shows", () => {
    const approves = turn("t4", "verifier", 40, "Approved: the Lyon figure looks good.");
    const rows = scoreTrace(input([manager, ask, answer, check, approves, close], { outcomeOverride: failed })).attributions;
    // The verifier approved the researcher's figure (the orchestrator's request to check is not what it judged).
    expect(rows[0]).toMatchObject({ rank: 1, method: "suspect", agent: "researcher", spanId: "t2" });
    expect(rows[0]?.reason).toContain("verifier approved a result whose content");
    expect(rows.find((r) => r.spanId === "t4")?.reason).toContain("approved");
    const contracted = scoreTrace(
      input([manager, ask, answer, check, approves, close], { outcomeOverride: failed, config: config({ agentContracts: verifierContract }) }),
    ).attributions;
    expect(contracted[0]).toMatchObject({ rank: 1, agent: "researcher", spanId: "t2" });
    expect(contracted.find((r) => r.spanId === "t4")?.reason).toContain("FM-3.3");
  });

  it("names the turn the final answer's content came from when the conversation shows nothing else", () => {
    const rows = scoreTrace(input(clean, { outcomeOverride: failed })).attributions;
    expect(rows[0]).toMatchObject({ rank: 1, method: "suspect", agent: "researcher", spanId: "t2" });
    expect(rows[0]?.reason).toContain("the final answer's content");
  });

  it("names a rejection the run followed before it failed, and not one the final answer overrode", () => {
    const rejects = turn("t4", "verifier", 40, "Rejected: INSEE does not publish a 2023 estimate for Lyon.");
    const fallBack = turn("t5", "orchestrator", 50, "Final answer: the latest INSEE count for Lyon is 516,092 (2021).");
    const rows = scoreTrace(input([manager, ask, answer, check, rejects, fallBack], { outcomeOverride: failed })).attributions;
    expect(rows[0]).toMatchObject({ rank: 1, method: "suspect", agent: "verifier", spanId: "t4" });
    expect(rows[0]?.reason).toContain("the run moved away from it");
    // The final answer restates the rejected result: the rejection did not steer the run.
    const overridden = scoreTrace(input([manager, ask, answer, check, rejects, close], { outcomeOverride: failed })).attributions;
    expect(overridden.some((r) => r.reason.includes("moved away"))).toBe(false);
  });

  it("falls back to the last step, labelled so, when nothing else is known", () => {
    // A run whose only step is a tool call with no captured content: nothing to trace.
    const silent: SpanSpec[] = [
      { id: "run", op: "agent", agent: "runner", start: 0, end: 100, input: GOAL },
      { id: "run.lookup", parent: "run", op: "tool", tool: "lookup", start: 10, end: 20 },
    ];
    const rows = scoreTrace(input(silent, { outcomeOverride: failed })).attributions;
    expect(rows).toEqual([expect.objectContaining({ rank: 1, method: "suspect_last_step_fallback", agent: "runner", spanId: "run.lookup", confidence: 0.1 })]);
  });

  it("gives a run that did not fail none", () => {
    expect(scoreTrace(input(loop, { outcomeOverride: { success: true } })).attributions).toEqual([]);
  });
});

describe("coordination on turns", () => {
  it("counts a turn said again by the same agent as redundant", () => {
    expect(redundancyRate(traj(clean))).toMatchObject({ steps: 5, repeats: 0, rate: 0 });
    const again = turn("t6", "researcher", 60, answer.output as string);
    expect(redundancyRate(traj([...clean, again]))).toMatchObject({ steps: 6, repeats: 1 });
  });
});
