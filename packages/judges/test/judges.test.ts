/**
 * The judges over the travel trace (travel-trace.ts), against the local mock
 * provider: a dropped constraint and a rubber-stamping verifier, neither of
 * which leaves a mechanical trace, come back as FM-2.4 and FM-3.2/FM-3.3
 * findings citing the right spans; the decisive-error judges attribute; the
 * outcome rubric grades; citations that do not hold are rejected.
 */
import type { JudgeKind, JudgeVerdictResult } from "@crux/contracts";
import { prepareTrace, runTagsOf, type RunTagsOverride } from "@crux/core";
import { startMockLlmServer, type MockLlmServer } from "@crux/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJudgeSuite, type JudgeRunResult, type JudgeSuiteOptions } from "../src/index.ts";
import { droppedConstraintReply, rubberStampReply, checklistReply } from "./replies.ts";
import { longTrace } from "./long-trace.ts";
import { GOAL, HANDOFF_MESSAGE, ids, travelTrace } from "./travel-trace.ts";

let mock: MockLlmServer;
beforeEach(async () => {
  mock = await startMockLlmServer();
});
afterEach(() => mock.close());

function input(override: RunTagsOverride | null = { success: false }) {
  const spans = travelTrace();
  const trajectories = prepareTrace(spans);
  return { spans, trajectories, runTags: runTagsOf(trajectories, override) };
}

const suiteOn = (m: MockLlmServer, options: JudgeSuiteOptions = {}) =>
  createJudgeSuite(
    { provider: "openai", model: "claude-haiku-4-5", baseUrl: m.openAiBaseUrl, apiKey: "sk-test-judges-0123456789" },
    { retryBaseDelayMs: 1, ...options },
  );

function judge(kind: JudgeKind, options: JudgeSuiteOptions = {}) {
  const found = suiteOn(mock, { ...options, kinds: [kind] }).judges[0];
  if (!found) throw new Error("no judge");
  return found;
}

const verdict = (r: JudgeRunResult) => {
  expect(r.status).toBe("succeeded");
  return r.result as JudgeVerdictResult;
};

describe("the travel trace: a dropped constraint and a rubber-stamping verifier", () => {
  it("handoff preservation finds FM-2.4 at the handoff, attributed to the orchestrator", async () => {
    mock.reply({ text: droppedConstraintReply });
    const r = verdict(await judge("handoff-preservation").run(input()));
    expect(r.findings).toEqual([
      {
        mode: "FM-2.4",
        agent: "orchestrator",
        spanId: ids.handoff,
        stepIndex: 1,
        evidence: HANDOFF_MESSAGE.slice(0, 40),
        explanation: 'dropped "EU carriers only": the searcher was never told to stay with EU carriers',
        confidence: 0.9,
      },
    ]);
    expect(r.rejected).toEqual([]);
    // The checker's nested invocation carries no message: said, not silently skipped.
    expect(r.omitted).toEqual(["handoff 1 carries no captured message"]);
    const prompt = mock.requests[0]!.prompt;
    expect(prompt).toContain(GOAL);
    expect(prompt).toContain(`Handoff 0: orchestrator → flight_searcher\n  message: ${HANDOFF_MESSAGE}`);
  });

  it("the MAST checklist finds FM-3.2 and FM-3.3 at the checker's approval", async () => {
    mock.reply({ text: rubberStampReply });
    const r = verdict(await judge("mast-checklist").run(input()));
    expect(r.findings.map((f) => [f.mode, f.agent, f.spanId, f.stepIndex])).toEqual([
      ["FM-3.2", "checker", ids.approve, 4],
      ["FM-3.3", "checker", ids.approve, 4],
    ]);
    expect(r.rejected).toEqual([]);
    expect(r.omitted).toEqual([]);
    const prompt = mock.requests[0]!.prompt;
    // Numbered steps with agent names; one narrow question per mode.
    expect(prompt).toContain("[4] checker · model call (gpt-4o-mini)");
    expect(prompt).toContain("  output: Looks good to me. Approved, go ahead and book it.");
    expect(prompt).toContain("FM-3.3: Does a check approve a result that is wrong");
    expect(prompt.match(/^FM-\d\.\d: /gm)).toHaveLength(14);
    expect(prompt).toContain("Reported outcome: the run failed.");
  });

  it("rejects a citation of a step that does not exist and a quote that is not in the cited step", async () => {
    mock.reply({
      text: checklistReply(
        { mode: "FM-2.3", answer: "yes", step: 42, evidence: "anything", explanation: "", confidence: 0.5 },
        { mode: "FM-3.3", answer: "yes", step: 3, evidence: "Approved, go ahead", explanation: "", confidence: 0.5 },
        { mode: "FM-1.1", answer: "yes", step: 5, evidence: "", explanation: "", confidence: 0.5 },
        { mode: "FM-3.2", answer: "yes", step: 4, evidence: "Looks good ... book it", explanation: "", confidence: 0.5 },
      ),
    });
    const r = verdict(await judge("mast-checklist").run(input()));
    expect(r.findings.map((f) => [f.mode, f.stepIndex])).toEqual([["FM-3.2", 4]]); // an elided quote holds
    expect(r.rejected).toEqual([
      { mode: "FM-1.1", stepIndex: 5, reason: "no quote from step 5" },
      { mode: "FM-2.3", stepIndex: 42, reason: "step 42 does not exist (the steps are 0-5)" },
      { mode: "FM-3.3", stepIndex: 3, reason: 'the quote is not in step 3\'s text: "Approved, go ahead"' },
    ]);
  });

  it("reads the plain variations models write (Yes, [4], a null explanation) and counts anything else an invalid reply", async () => {
    mock.reply({ text: checklistReply({ mode: "FM-3.3", answer: "Yes", step: "[4]", evidence: "Approved", explanation: null, confidence: null }) });
    const r = verdict(await judge("mast-checklist").run(input()));
    expect(r.findings).toEqual([
      { mode: "FM-3.3", agent: "checker", spanId: ids.approve, stepIndex: 4, evidence: "Approved", explanation: "", confidence: 0.5 },
    ]);
    mock.reply({ text: checklistReply({ mode: "FM-3.3", answer: "probably", step: 4 }) }, { text: '{"answers": []}' }, { text: "[]" });
    const failed = await judge("mast-checklist").run(input());
    expect(failed.status).toBe("failed");
    expect(failed.calls.map((c) => c.error)).toEqual([
      expect.stringContaining("answers[13].answer"),
      expect.stringContaining("answers missing for FM-1.1, FM-1.2"),
      expect.stringContaining("holds no JSON object"),
    ]);
  });

  it("reports a changed constraint, quoting the handoff's wording", async () => {
    mock.reply({
      text: JSON.stringify({
        issues: [{ handoff: 0, constraint: "under 900 EUR", change: "Changed", handoffQuote: "under 900 EUR", explanation: "kept", confidence: 0.4 }],
      }),
    });
    const r = verdict(await judge("handoff-preservation").run(input()));
    expect(r.findings.map((f) => [f.mode, f.agent, f.stepIndex, f.evidence, f.explanation])).toEqual([
      ["FM-2.4", "orchestrator", 1, "under 900 EUR", 'changed "under 900 EUR": kept'],
    ]);
  });

  it("rejects a handoff issue whose constraint is not in the request", async () => {
    mock.reply({
      text: JSON.stringify({ issues: [{ handoff: 0, constraint: "window seat", change: "dropped", handoffQuote: "Find a flight", explanation: "" }] }),
    });
    const r = verdict(await judge("handoff-preservation").run(input()));
    expect(r.findings).toEqual([]);
    expect(r.rejected).toEqual([{ mode: "FM-2.4", stepIndex: 1, reason: 'the constraint is not in the task request: "window seat"' }]);
  });

  it("decisive error all-at-once names the agent and step; a bad step keeps the agent only", async () => {
    mock.reply(
      {
        text: JSON.stringify({ agent: "orchestrator", step: 1, evidence: "Find a flight from Paris to Tokyo", explanation: "dropped the EU-only constraint" }),
      },
      { text: JSON.stringify({ agent: "orchestrator", step: 9, evidence: "x", explanation: "e" }) },
    );
    const j = judge("decisive-error-all-at-once");
    expect(verdict(await j.run(input())).attribution).toEqual({
      method: "all-at-once",
      agent: "orchestrator",
      spanId: ids.handoff,
      stepIndex: 1,
      explanation: "dropped the EU-only constraint",
    });
    const second = verdict(await j.run(input()));
    expect(second.attribution).toEqual({ method: "all-at-once", agent: "orchestrator", spanId: null, stepIndex: null, explanation: "e" });
    expect(second.rejected).toEqual([{ mode: "decisive-error", stepIndex: 9, reason: "step 9 does not exist (the steps are 0-5)" }]);
  });

  it("decisive error step-by-step walks windows of steps and stops at the first decisive one", async () => {
    mock.reply({ text: JSON.stringify({ step: 1, evidence: "for one adult under 900 EUR", explanation: "the handoff lost the constraint" }) });
    const r = verdict(await judge("decisive-error-step-by-step").run(input()));
    expect(r.attribution).toEqual({
      method: "step-by-step",
      agent: "orchestrator",
      spanId: ids.handoff,
      stepIndex: 1,
      explanation: "the handoff lost the constraint",
    });
    expect(mock.requests).toHaveLength(1); // six steps: one window
    expect(mock.requests[0]!.prompt).toContain("Examine steps [0] to [5]");
  });

  it("decisive error judges ask for the abduction scaffold and store the counterfactual in the verdict", async () => {
    const counterfactual = "Had the handoff kept 'EU carriers only', the booker would have picked an EU flight and the run would have succeeded.";
    const reply = {
      failure: "a non-EU carrier was booked",
      step: 1,
      evidence: "for one adult under 900 EUR",
      counterfactual,
      explanation: "the handoff lost the constraint",
    };
    mock.reply({ text: JSON.stringify({ ...reply, agent: "orchestrator" }) }, { text: JSON.stringify(reply) });
    const all = verdict(await judge("decisive-error-all-at-once").run(input()));
    const step = verdict(await judge("decisive-error-step-by-step").run(input()));
    expect(all.attribution).toMatchObject({ method: "all-at-once", stepIndex: 1, counterfactual });
    expect(step.attribution).toMatchObject({ method: "step-by-step", stepIndex: 1, counterfactual });
    for (const request of mock.requests) {
      expect(request.prompt).toContain("1. Abduction: what went wrong?");
      expect(request.prompt).toContain("2. Action: which step's action caused it?");
      expect(request.prompt).toContain("3. Prediction: had that step been right");
      expect(request.prompt).toContain("is not the author of an error that output shows");
      expect(request.prompt).toContain('"counterfactual": ');
    }
  });

  it("step-by-step goes on past a window with no decisive step, rejects a step outside the window, and stops at the first that holds", async () => {
    mock.reply(
      { text: JSON.stringify({ step: null, explanation: "" }) },
      { text: JSON.stringify({ step: 3, evidence: "step 3 says", explanation: "not examined here" }) },
      { text: JSON.stringify({ step: 25, evidence: "step 25 says", explanation: "the count went wrong" }) },
    );
    const spans = longTrace(40, 20);
    const trajectories = prepareTrace(spans);
    const r = verdict(await judge("decisive-error-step-by-step").run({ spans, trajectories, runTags: runTagsOf(trajectories, { success: false }) }));
    expect(r.attribution).toEqual({
      method: "step-by-step",
      agent: "worker",
      spanId: trajectories.steps[25]!.spanId,
      stepIndex: 25,
      explanation: "the count went wrong",
    });
    expect(r.rejected).toEqual([{ mode: "decisive-error", stepIndex: 3, reason: "step 3 is outside the steps examined (10-19)" }]);
    expect(mock.requests.map((q) => /Examine steps \[(\d+)\] to \[(\d+)\]/.exec(q.prompt)!.slice(1).join("-"))).toEqual(["0-9", "10-19", "20-29"]);
    // Each window holds the history so far, never the steps after it.
    expect(mock.requests[1]!.prompt).toContain("step 19 says");
    expect(mock.requests[1]!.prompt).not.toContain("step 20 says");
  });

  it("an empty reply ({}) to either decisive-error judge is invalid, never a verdict of no decisive error", async () => {
    for (const kind of ["decisive-error-all-at-once", "decisive-error-step-by-step"] as const) {
      mock.reply({ text: "{}" }, { text: '{"explanation": "looks fine"}' }, { text: "{}" });
      const failed = await judge(kind).run(input());
      expect(failed.status).toBe("failed");
      expect(failed.calls.map((c) => c.error)).toEqual([
        expect.stringContaining("step is missing"),
        expect.stringContaining("step is missing"),
        expect.stringContaining("step is missing"),
      ]);
      // An explicit null is an answer: no decisive step.
      mock.reply({ text: '{"agent": null, "step": null, "explanation": "no step made the failure inevitable"}' });
      expect(verdict(await judge(kind).run(input())).attribution).toBeNull();
    }
  });

  it("decisive error judges skip a run that succeeded, without a call", async () => {
    const r = verdict(await judge("decisive-error-all-at-once").run(input({ success: true })));
    expect(r.skipped).toBe("the run succeeded: there is no decisive error to find");
    expect(r.attribution).toBeNull();
    expect(mock.requests).toHaveLength(0);
  });

  it("the outcome rubric grades a run with no reported outcome, and skips without a rubric or with an outcome", async () => {
    mock.reply({ text: JSON.stringify({ success: false, score: 0.2, step: 5, evidence: "confirmation ZX81", explanation: "booked a non-EU carrier" }) });
    const rubric = "Success: a flight booked that meets every constraint of the request.";
    const graded = verdict(await judge("outcome-rubric", { rubric }).run(input(null)));
    expect(graded.outcome).toEqual({ success: false, score: 0.2, explanation: "booked a non-EU carrier" });
    expect(mock.requests[0]!.prompt).toContain(rubric);
    expect(mock.requests[0]!.prompt).toContain("Final output of the run: Booked ANA NH216 on 12 March for 850 EUR.");
    const noRubric = verdict(await judge("outcome-rubric").run(input(null)));
    expect(noRubric.skipped).toBe("no outcome rubric configured for the project");
    const known = verdict(await judge("outcome-rubric", { rubric }).run(input({ success: false })));
    expect(known.skipped).toBe("the outcome is known (override): nothing to grade");
    expect(mock.requests).toHaveLength(1);
  });

  it("warns of self-preference when the judge's family is one the trace's agents use", async () => {
    mock.reply({ text: rubberStampReply }, { text: rubberStampReply });
    const claude = verdict(await judge("mast-checklist").run(input()));
    expect(claude.selfPreferenceWarning).toBeNull(); // agents use gpt-4o, the judge is claude
    const gpt = createJudgeSuite({ provider: "openai", model: "gpt-4.1", baseUrl: mock.openAiBaseUrl, apiKey: "k" }, { kinds: ["mast-checklist"] }).judges[0]!;
    const warned = verdict(await gpt.run(input()));
    expect(warned.selfPreferenceWarning).toBe(
      "the judge model gpt-4.1 is of the gpt family, which this trace's agents use (gpt-4o, gpt-4o-mini); a judge tends to favour output of its own family",
    );
  });

  it("builds one judge per kind with its id, version, model and inputs", () => {
    const suite = suiteOn(mock);
    expect(suite.judges.map((j) => [j.id, j.version, j.model, j.inputs])).toEqual([
      ["judge.mast-checklist", 1, "claude-haiku-4-5", ["spans", "outcome"]],
      ["judge.handoff-preservation", 1, "claude-haiku-4-5", ["spans"]],
      ["judge.decisive-error-all-at-once", 2, "claude-haiku-4-5", ["spans", "outcome"]],
      ["judge.decisive-error-step-by-step", 2, "claude-haiku-4-5", ["spans", "outcome"]],
      ["judge.outcome-rubric", 1, "claude-haiku-4-5", ["spans", "outcome"]],
    ]);
  });
});
