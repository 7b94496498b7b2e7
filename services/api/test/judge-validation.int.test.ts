/**
 * Labels, validation and judge-sourced rates end to end through the API: verdicts are stored with
 * insertVerdict (results validated by the JudgeVerdictResult schema), labels through PUT, and every
 * expected figure is worked out by hand in the comments.
 */
import { JudgeVerdictResult, type JudgeKind } from "@crux/contracts";
import { judgeDefinitions } from "@crux/judges";
import { insertVerdict, persistTraceScores, rebuildScoreRollups, type Database } from "@crux/db";
import type { MastModeId } from "@crux/core";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp, storeTraceSpan } from "./harness.ts";
import { hexSpanId, hexTraceId, scoreRecord } from "./score-records.ts";

const t = hexTraceId;

interface VerdictSpec {
  findings?: { mode: MastModeId; agent: string; step: number }[];
  attribution?: { method: "all-at-once" | "step-by-step"; agent: string; step: number } | null;
  outcome?: boolean | null;
}

function verdict(kind: JudgeKind, spec: VerdictSpec): JudgeVerdictResult {
  // Parsed by the schema the judges produce, so the test stores what a real judge would.
  return JudgeVerdictResult.parse({
    kind,
    promptVersion: 1,
    provider: "anthropic",
    model: "claude-test",
    findings: (spec.findings ?? []).map((f) => ({
      mode: f.mode,
      agent: f.agent,
      spanId: hexSpanId(200 + f.step),
      stepIndex: f.step,
      evidence: `step ${f.step} says so`,
      explanation: `${f.mode} at step ${f.step}`,
      confidence: 0.7,
    })),
    attribution:
      spec.attribution == null
        ? null
        : {
            method: spec.attribution.method,
            agent: spec.attribution.agent,
            spanId: hexSpanId(200 + spec.attribution.step),
            stepIndex: spec.attribution.step,
            explanation: "the decisive step",
          },
    outcome: spec.outcome == null ? null : { success: spec.outcome, score: null, explanation: "graded against the rubric" },
    askedModes: [...judgeDefinitions[kind].asksAbout],
    omitted: [],
    rejected: [],
    selfPreferenceWarning: null,
  });
}

async function judge(database: Database, n: number, kind: JudgeKind, spec: VerdictSpec, inputHash = "h1"): Promise<void> {
  const stored = await insertVerdict(database, PROJECT, t(n), {
    producerId: `judge.${kind}`,
    producerVersion: 1,
    model: "judge-model",
    inputHash,
    status: "succeeded",
    result: verdict(kind, spec),
  });
  expect(stored).toBe(true);
}

/**
 * Traces 1..6 in the default window (all scored, agents lead and search), trace 7 thirty hours back.
 * Code FM-1.3 on 1 (lead), 2 (search), 3 (lead); the code attribution's rank 1 is that finding (step 0).
 * Tracer outcome: 1..3 failed, 4..6 none.
 */
async function seed(database: Database): Promise<void> {
  const codeAgent: Record<number, string> = { 1: "lead", 2: "search", 3: "lead" };
  for (const n of [1, 2, 3, 4, 5, 6, 7]) {
    const startMs = n === 7 ? NOW - 30 * HOUR : NOW - HOUR;
    await storeTraceSpan(database, n, startMs);
    const record = scoreRecord({
      n,
      startMs,
      success: n <= 3 ? false : null,
      agents: [
        { agent: "lead", input: 10, output: 5 },
        { agent: "search", input: 10, output: 5 },
      ],
      findings: codeAgent[n] === undefined ? [] : [{ mode: "FM-1.3", agent: codeAgent[n] }],
    });
    // Six steps (lead at even indexes, search at odd), so labels can name the steps 0..5 verdicts cite.
    const steps = [0, 1, 2, 3, 4, 5].map((index) => ({ ...record.trajectories[0]!.steps[0]!, index, spanId: hexSpanId(200 + index) }));
    record.trajectories = ["lead", "search"].map((agent, i) => ({ agent, steps: steps.filter((s) => s.index % 2 === i) }));
    await persistTraceScores(database, PROJECT, record);
  }
  // MAST checklist on 1..5: FM-1.3 on 1, 2, 4; FM-2.2 on 1, 2.
  const mast: Record<number, VerdictSpec["findings"]> = {
    1: [
      { mode: "FM-1.3", agent: "lead", step: 1 },
      { mode: "FM-2.2", agent: "lead", step: 2 },
    ],
    2: [
      { mode: "FM-1.3", agent: "search", step: 1 },
      { mode: "FM-2.2", agent: "search", step: 2 },
    ],
    3: [],
    4: [{ mode: "FM-1.3", agent: "search", step: 1 }],
    5: [],
  };
  for (const [n, findings] of Object.entries(mast)) await judge(database, Number(n), "mast-checklist", { findings });
  // Decisive error: all-at-once on 1..4 and 7; step-by-step on 1, 2.
  const allAtOnce: Record<number, [string, number]> = { 1: ["lead", 5], 2: ["search", 3], 3: ["search", 0], 4: ["search", 2], 7: ["lead", 1] };
  for (const [n, [agent, step]] of Object.entries(allAtOnce)) {
    await judge(database, Number(n), "decisive-error-all-at-once", { attribution: { method: "all-at-once", agent, step } });
  }
  await judge(database, 1, "decisive-error-step-by-step", { attribution: { method: "step-by-step", agent: "lead", step: 0 } });
  await judge(database, 2, "decisive-error-step-by-step", { attribution: { method: "step-by-step", agent: "search", step: 3 } });
  // Outcome rubric: 4 succeeded, 5 failed; 1 succeeded, but its tracer outcome (failed) wins.
  await judge(database, 4, "outcome-rubric", { outcome: true });
  await judge(database, 5, "outcome-rubric", { outcome: false });
  await judge(database, 1, "outcome-rubric", { outcome: true });
}

/** Labels of 1..6: FM-1.3 present on 1, 2, 4; FM-2.2 present on 1, 5, 6; decisive agent and step on 1..4. */
const labels: Record<number, { modes: Record<string, boolean>; decisive?: { agent: string; stepIndex: number } }> = {
  1: { modes: { "FM-1.3": true, "FM-2.2": true }, decisive: { agent: "lead", stepIndex: 0 } },
  2: { modes: { "FM-1.3": true, "FM-2.2": false }, decisive: { agent: "search", stepIndex: 3 } },
  3: { modes: { "FM-1.3": false, "FM-2.2": false }, decisive: { agent: "lead", stepIndex: 0 } },
  4: { modes: { "FM-1.3": true, "FM-2.2": false }, decisive: { agent: "search", stepIndex: 2 } },
  5: { modes: { "FM-1.3": false, "FM-2.2": true } },
  6: { modes: { "FM-1.3": false, "FM-2.2": true } },
};

describe.each(testDatabases())("labels, validation and judge-sourced rates on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const get = async (url: string) => {
    const res = await app.inject({ method: "GET", url });
    return { status: res.statusCode, body: res.json() };
  };
  const put = async (url: string, payload: unknown) => {
    const res = await app.inject({ method: "PUT", url, payload: payload as object });
    return { status: res.statusCode, body: res.json() };
  };
  const rateOf = (body: { rates: { mode: string }[] }, mode: string) => body.rates.find((r) => r.mode === mode) as Record<string, unknown>;

  beforeAll(async () => {
    database = await create();
    // A small bar so six labels can validate: kappa .6 on at least 4 labelled traces.
    app = await buildTestApp(database, { validationBar: { kappaBar: 0.6, minLabels: 4 } });
    await seed(database);
    for (const [n, l] of Object.entries(labels)) {
      const res = await put(`/api/v1/traces/${t(Number(n))}/labels`, { modes: l.modes, decisive: l.decisive ?? null, labeller: "ana" });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("stores and serves a trace's labels, replacing them on PUT", async () => {
    const first = await get(`/api/v1/traces/${t(1)}/labels`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      traceId: t(1),
      labelled: true,
      labels: { modes: { "FM-1.3": true, "FM-2.2": true }, decisive: { agent: "lead", spanId: null, stepIndex: 0 }, note: null, labeller: "ana" },
    });
    const unlabelled = await get(`/api/v1/traces/${t(7)}/labels`);
    expect(unlabelled.body).toEqual({ traceId: t(7), labelled: false, labels: null });
    // A replace keeps nothing of the old labels; then the original ones are put back.
    const replaced = await put(`/api/v1/traces/${t(6)}/labels`, { modes: { "FM-3.3": true }, note: "second look", labeller: "ben" });
    expect(replaced.body.labels).toMatchObject({
      modes: { "FM-3.3": true },
      decisive: { agent: null, spanId: null, stepIndex: null },
      note: "second look",
      labeller: "ben",
    });
    expect((await get(`/api/v1/traces/${t(6)}/labels`)).body.labels.modes).toEqual({ "FM-3.3": true });
    await put(`/api/v1/traces/${t(6)}/labels`, { modes: labels[6]!.modes, labeller: "ana" });
  });

  it("rejects bad labels whole with a 400 that says what is wrong, and an unknown trace with 404", async () => {
    const url = `/api/v1/traces/${t(1)}/labels`;
    const unknownMode = await put(url, { modes: { "FM-9.9": true }, labeller: "ana" });
    expect(unknownMode.status).toBe(400);
    expect(unknownMode.body.code).toBe("invalid_request");
    expect(unknownMode.body.message).toContain('unknown failure mode "FM-9.9"');
    const notBoolean = await put(url, { modes: { "FM-1.3": "yes" }, labeller: "ana" });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.message).toContain("must be true (present) or false (absent)");
    const noLabeller = await put(url, { modes: { "FM-1.3": true } });
    expect(noLabeller.status).toBe(400);
    expect(noLabeller.body.message).toContain("labeller");
    const nothing = await put(url, { modes: {}, labeller: "ana" });
    expect(nothing.status).toBe(400);
    expect(nothing.body.message).toContain("label at least one mode or the decisive agent or step");
    const badSpan = await put(url, { decisive: { spanId: "xyz" }, labeller: "ana" });
    expect(badSpan.status).toBe(400);
    expect(badSpan.body.message).toContain("must be 16 hex characters");
    const extra = await put(url, { modes: { "FM-1.3": true }, labeller: "ana", verdict: "bad" });
    expect(extra.status).toBe(400);
    const unknownTrace = await put(`/api/v1/traces/${t(99)}/labels`, { modes: { "FM-1.3": true }, labeller: "ana" });
    expect(unknownTrace.status).toBe(404);
    expect((await get(`/api/v1/traces/${t(99)}/labels`)).status).toBe(404);
    // Nothing of the rejected bodies was stored.
    expect((await get(url)).body.labels.modes).toEqual({ "FM-1.3": true, "FM-2.2": true });
  });

  it("measures kappa, precision, recall and n per mode and source against the labels", async () => {
    const { status, body } = await get("/api/v1/validation");
    expect(status).toBe(200);
    expect(body.labelledTraces).toBe(6);
    expect(body.bar).toEqual({ kappaBar: 0.6, minLabels: 4 });
    const row = (mode: string, source: string) => body.modes.find((m: { mode: string; source: string }) => m.mode === mode && m.source === source);

    // Code FM-1.3 on 1..6 (all scored): predicted 1, 2, 3; labelled 1, 2, 4.
    // tp 2 (1, 2), fp 1 (3), fn 1 (4), tn 2 (5, 6); pₒ = 4/6; pₑ = (3·3 + 3·3)/36 = .5; κ = (2/3 − 1/2)/(1/2) = 1/3.
    const code = row("FM-1.3", "code");
    expect(code).toMatchObject({ kind: "code", detectors: ["repetition"], n: 6, truePositives: 2, falsePositives: 1, falseNegatives: 1, trueNegatives: 2 });
    expect(code.kappa).toBeCloseTo(1 / 3, 12);
    expect(code.precision).toBeCloseTo(2 / 3, 12);
    expect(code.recall).toBeCloseTo(2 / 3, 12);
    expect(code).toMatchObject({ validated: false, reason: "kappa 0.333 is under the bar of 0.6" });
    // Its one detector alone (the findings name it): the same traces and counts, marked against the bar the same way.
    expect(row("FM-1.3", "code.repetition")).toMatchObject({
      kind: "code",
      detectors: ["repetition"],
      n: 6,
      truePositives: 2,
      falsePositives: 1,
      falseNegatives: 1,
      trueNegatives: 2,
      validated: false,
      reason: "kappa 0.333 is under the bar of 0.6",
    });
    expect(body.modes.filter((m: { mode: string }) => m.mode === "FM-1.3").map((m: { source: string }) => m.source)).toEqual([
      "code",
      "code.repetition",
      "judge.mast-checklist",
    ]);

    // Judge FM-1.3 on 1..5 (6 not judged): predicted 1, 2, 4 = labelled: tp 3, tn 2, κ = 1.
    expect(row("FM-1.3", "judge.mast-checklist")).toMatchObject({
      kind: "judge",
      n: 5,
      truePositives: 3,
      trueNegatives: 2,
      kappa: 1,
      precision: 1,
      recall: 1,
      validated: true,
      reason: null,
    });
    // Judge FM-2.2 on 1..5: predicted 1, 2; labelled 1, 5. tp 1, fp 1 (2), fn 1 (5), tn 2 (3, 4).
    // pₒ = 3/5; pₑ = (2·2 + 3·3)/25 = 13/25; κ = (15/25 − 13/25)/(12/25) = 1/6; precision 1/2, recall 1/2.
    const fm22 = row("FM-2.2", "judge.mast-checklist");
    expect(fm22).toMatchObject({
      n: 5,
      truePositives: 1,
      falsePositives: 1,
      falseNegatives: 1,
      trueNegatives: 2,
      precision: 0.5,
      recall: 0.5,
      validated: false,
    });
    expect(fm22.kappa).toBeCloseTo(1 / 6, 12);
    expect(fm22.reason).toBe("kappa 0.167 is under the bar of 0.6");
    // FM-2.2 has no code detector: no code row. Judges that name no mode have no mode rows.
    expect(row("FM-2.2", "code")).toBeUndefined();
    expect(body.modes.some((m: { source: string }) => m.source === "judge.decisive-error-all-at-once")).toBe(false);
    // An unlabelled mode: n 0, kappa null with a reason.
    expect(row("FM-1.4", "judge.mast-checklist")).toMatchObject({
      n: 0,
      kappa: null,
      kappaReason: "no labelled trace",
      validated: false,
      reason: "0 labelled traces; at least 4 needed",
    });
  });

  it("measures agent- and step-level attribution accuracy per method", async () => {
    const { body } = await get("/api/v1/validation");
    const method = (m: string) => body.attribution.find((a: { method: string }) => a.method === m);
    // Labels name agent and step on 1..4. Code rank 1 exists on 1..3 (the FM-1.3 finding, step 0):
    // 1 lead/0 (right, right), 2 search/0 (right, wrong: step 3), 3 lead/0 (right, right); 4 has none.
    expect(method("code")).toEqual({
      method: "code",
      source: "code",
      agent: { n: 3, correct: 3, accuracy: 1 },
      step: { n: 3, correct: 2, accuracy: 2 / 3 },
      unanswered: 1,
    });
    // All-at-once on 1..4: 1 lead/5 (agent only), 2 search/3 (both), 3 search/0 (step only), 4 search/2 (both).
    expect(method("all-at-once")).toEqual({
      method: "all-at-once",
      source: "judge.decisive-error-all-at-once",
      agent: { n: 4, correct: 3, accuracy: 0.75 },
      step: { n: 4, correct: 3, accuracy: 0.75 },
      unanswered: 0,
    });
    // Step-by-step on 1, 2: both right.
    expect(method("step-by-step")).toMatchObject({ agent: { n: 2, correct: 2, accuracy: 1 }, step: { n: 2, correct: 2, accuracy: 1 } });
  });

  it("ranks the trace's attribution methods by measured accuracy, unmeasured ones last", async () => {
    // On trace 1: step-by-step (step 1.0) > all-at-once (.75) > code (2/3).
    const one = await get(`/api/v1/traces/${t(1)}/attribution`);
    expect(one.body.items).toHaveLength(1); // the code rows as stored
    expect(one.body.methods.map((m: { rank: number; method: string; pick: { stepIndex: number } | null }) => [m.rank, m.method, m.pick?.stepIndex])).toEqual([
      [1, "step-by-step", 0],
      [2, "all-at-once", 5],
      [3, "code", 0],
    ]);
    // Trace 7 carries a judge no labelled trace measures: it ranks after the measured ones.
    await insertVerdict(database, PROJECT, t(7), {
      producerId: "judge.custom-attribution",
      producerVersion: 1,
      model: "judge-model",
      inputHash: "h1",
      status: "succeeded",
      result: verdict("decisive-error-all-at-once", { attribution: { method: "step-by-step", agent: "search", step: 4 } }),
    });
    const seven = await get(`/api/v1/traces/${t(7)}/attribution`);
    expect(seven.body.methods.map((m: { source: string; measured: boolean; pick: unknown }) => [m.source, m.measured, m.pick === null])).toEqual([
      ["judge.decisive-error-all-at-once", true, false],
      ["code", true, true], // no code attribution on a trace without findings
      ["judge.custom-attribution", false, false],
    ]);
  });

  it("counts judge findings in the rates with source, and marks unvalidated judge modes", async () => {
    // 6 scored traces in the default window. FM-1.3: code on 1, 2, 3; judge on 1, 2, 4.
    const all = await get("/api/v1/metrics/failure-modes");
    expect(all.body).toMatchObject({ source: "all", scopeTraces: 6, judgedTraces: 5 });
    expect(rateOf(all.body, "FM-1.3")).toMatchObject({ numerator: 4, denominator: 6, rate: 4 / 6, validated: true, validationReason: null });
    expect(rateOf(all.body, "FM-1.3").detectors).toEqual(["repetition", "judge.mast-checklist"]);
    // FM-2.2: no code detector; the judge found it on 1, 2 and is not validated for it. The rate rests
    // on the judge alone, so it is counted over the 5 traces the judge read, not the 6 scored.
    expect(rateOf(all.body, "FM-2.2")).toMatchObject({
      numerator: 2,
      denominator: 5,
      rate: 2 / 5,
      measured: true,
      detectors: ["judge.mast-checklist"],
      reason: "measured by judges only; code: no detector",
      validated: false,
      validationReason: "judge.mast-checklist on FM-2.2: kappa 0.167 is under the bar of 0.6",
    });
    expect(all.body.sources).toContainEqual({
      mode: "FM-2.2",
      source: "judge.mast-checklist",
      kind: "judge",
      findings: 2,
      traces: 2,
      validated: false,
      validationReason: "judge.mast-checklist on FM-2.2: kappa 0.167 is under the bar of 0.6",
    });
    expect(all.body.sources).toContainEqual({
      mode: "FM-1.3",
      source: "heuristic",
      kind: "code",
      findings: 3,
      traces: 3,
      validated: null,
      validationReason: null,
    });
    // Failed traces (1..3): FM-1.3 on all three by code; FM-2.2 on 1, 2 by the judge.
    expect(all.body.failed.modes).toEqual([
      { mode: "FM-1.3", traces: 3, share: 1 },
      { mode: "FM-2.2", traces: 2, share: 2 / 3 },
    ]);

    const code = await get("/api/v1/metrics/failure-modes?source=code");
    expect(rateOf(code.body, "FM-1.3")).toMatchObject({ numerator: 3, rate: 0.5, detectors: ["repetition"], validated: true });
    expect(rateOf(code.body, "FM-2.2")).toMatchObject({ numerator: 0, rate: null, measured: false, reason: "no detector" });
    expect(code.body.sources.every((s: { kind: string }) => s.kind === "code")).toBe(true);

    const judged = await get("/api/v1/metrics/failure-modes?source=judge");
    expect(rateOf(judged.body, "FM-1.3")).toMatchObject({ numerator: 3, denominator: 5, rate: 3 / 5, detectors: ["judge.mast-checklist"], validated: true });
    expect(rateOf(judged.body, "FM-2.2")).toMatchObject({ numerator: 2, validated: false });
    // Categories: FC1 by judge = traces with a judge FC1 finding (FM-1.3 on 1, 2, 4); its FM-1.4 etc. are unvalidated (no labels).
    const cat = await get("/api/v1/metrics/failure-modes?groupBy=category&source=judge");
    expect(rateOf(cat.body, "FC1")).toMatchObject({ numerator: 3, validated: false });
    expect(rateOf(cat.body, "FC1").validationReason).toContain("judge.mast-checklist on FM-1.4: 0 labelled traces; at least 4 needed");
    // By agent, all: lead has FM-1.3 by code on 1, 3 and by judge on 1 → 2 traces; search by code on 2, by judge on 2, 4 → 2.
    const byAgent = await get("/api/v1/metrics/failure-modes?groupBy=agent");
    const agentRow = (g: string, mode: string) => byAgent.body.rates.find((r: { group: string; mode: string }) => r.group === g && r.mode === mode);
    expect(agentRow("lead", "FM-1.3")).toMatchObject({ numerator: 2, denominator: 6 });
    expect(agentRow("search", "FM-1.3")).toMatchObject({ numerator: 2 });
    // FM-2.2 rests on the judge: search's rate is over the 5 of its traces the judge read, not its 6.
    expect(agentRow("search", "FM-2.2")).toMatchObject({ numerator: 1, denominator: 5, rate: 1 / 5, validated: false });
    // source=judge: every rate rests on the judge, per agent and per service alike.
    const judgedByAgent = await get("/api/v1/metrics/failure-modes?groupBy=agent&source=judge");
    expect(judgedByAgent.body.rates.find((r: { group: string; mode: string }) => r.group === "lead" && r.mode === "FM-1.3")).toMatchObject({
      numerator: 1,
      denominator: 5,
    });
    const judgedByService = await get("/api/v1/metrics/failure-modes?groupBy=service&source=judge");
    expect(rateOf(judgedByService.body, "FM-1.3")).toMatchObject({ numerator: 3, denominator: 5, rate: 3 / 5 });
    expect(rateOf((await get("/api/v1/metrics/failure-modes?groupBy=service")).body, "FM-2.2")).toMatchObject({ numerator: 2, denominator: 5 });
    expect(rateOf((await get("/api/v1/metrics/failure-modes?groupBy=service")).body, "FM-1.3")).toMatchObject({ numerator: 4, denominator: 6 });
    const bad = await get("/api/v1/metrics/failure-modes?source=people");
    expect(bad.status).toBe(400);
  });

  it("a new judge finding moves the judge rate and the combined rate, never the code rate", async () => {
    const before = await get("/api/v1/metrics/failure-modes?source=judge");
    expect(rateOf(before.body, "FM-1.3").numerator).toBe(3);
    // Trace 6 judged for the first time (FM-1.3), and trace 4 judged again on new spans, with no finding:
    // the newest verdict is current, so the judge's FM-1.3 traces become 1, 2, 6.
    await judge(database, 6, "mast-checklist", { findings: [{ mode: "FM-1.3", agent: "lead", step: 1 }] });
    await judge(database, 4, "mast-checklist", { findings: [] }, "h2");
    const judged = await get("/api/v1/metrics/failure-modes?source=judge");
    expect(rateOf(judged.body, "FM-1.3")).toMatchObject({ numerator: 3, denominator: 6 });
    expect(judged.body.judgedTraces).toBe(6);
    const findings = judged.body.sources.find((s: { mode: string; source: string }) => s.mode === "FM-1.3" && s.source === "judge.mast-checklist");
    expect(findings).toMatchObject({ findings: 3, traces: 3 });
    // Code still 1, 2, 3; combined 1, 2, 3, 6.
    expect(rateOf((await get("/api/v1/metrics/failure-modes?source=code")).body, "FM-1.3")).toMatchObject({ numerator: 3 });
    expect(rateOf((await get("/api/v1/metrics/failure-modes")).body, "FM-1.3")).toMatchObject({ numerator: 4 });
    // One more judge finding on a trace code did not flag (5): judge and combined move, code does not.
    await judge(database, 5, "mast-checklist", { findings: [{ mode: "FM-1.3", agent: "search", step: 1 }] }, "h2");
    expect(rateOf((await get("/api/v1/metrics/failure-modes?source=judge")).body, "FM-1.3")).toMatchObject({ numerator: 4 });
    expect(rateOf((await get("/api/v1/metrics/failure-modes")).body, "FM-1.3")).toMatchObject({ numerator: 5 });
    expect(rateOf((await get("/api/v1/metrics/failure-modes?source=code")).body, "FM-1.3")).toMatchObject({ numerator: 3 });
    // Trace 4 now has no current judge finding: its newest verdict found nothing.
    const detail = await get(`/api/v1/traces/${t(4)}/findings`);
    expect(detail.body.items.filter((f: { source: string }) => f.source === "judge")).toEqual([]);

    // Trace 1 re-scored without its code finding: code drops to 2, 3; the judge still has 1, so all stays 5
    // (the re-score moves the judge rollup's "judge only" count of trace 1 by the same delta).
    await persistTraceScores(
      database,
      PROJECT,
      scoreRecord({ n: 1, startMs: NOW - HOUR, success: false, version: 2, agents: [{ agent: "lead", input: 10, output: 5 }], findings: [] }),
    );
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          (["code", "judge", "all"] as const).map(async (src) => [
            src,
            rateOf((await get(`/api/v1/metrics/failure-modes?source=${src}`)).body, "FM-1.3").numerator,
          ]),
        ),
      );
    expect(await counts()).toEqual({ code: 2, judge: 4, all: 5 });
    // Per agent, the judge read 1..6: lead took part in all six, search (gone from 1) in five.
    const byAgent = async () =>
      (await get("/api/v1/metrics/failure-modes?groupBy=agent&source=judge")).body.rates
        .filter((r: { mode: string }) => r.mode === "FM-1.3")
        .map((r: { group: string; numerator: number; denominator: number }) => [r.group, r.numerator, r.denominator]);
    expect(await byAgent()).toEqual([
      ["lead", 2, 6],
      ["search", 2, 5],
    ]);
    // The rollups kept by these deltas equal a rebuild from the base rows.
    await rebuildScoreRollups(database, PROJECT);
    expect(await counts()).toEqual({ code: 2, judge: 4, all: 5 });
    expect(await byAgent()).toEqual([
      ["lead", 2, 6],
      ["search", 2, 5],
    ]);
  });

  it("serves judge findings on the trace with source judge and the judge id, paginated after the code ones", async () => {
    const page1 = await get(`/api/v1/traces/${t(2)}/findings?limit=2`);
    expect(
      page1.body.items.map((f: { mode: string; source: string; detector: string | null; judge: string | null }) => [f.mode, f.source, f.detector, f.judge]),
    ).toEqual([
      ["FM-1.3", "heuristic", "repetition", null],
      ["FM-1.3", "judge", null, "judge.mast-checklist"],
    ]);
    expect(page1.body.items[1]).toMatchObject({
      agent: "search",
      spanId: hexSpanId(201),
      stepIndex: 1,
      explanation: "FM-1.3 at step 1",
      evidence: "step 1 says so",
    });
    const page2 = await get(`/api/v1/traces/${t(2)}/findings?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.items.map((f: { mode: string; judge: string | null }) => [f.mode, f.judge])).toEqual([["FM-2.2", "judge.mast-checklist"]]);
    expect(page2.body.nextCursor).toBeNull();
    expect((await get(`/api/v1/traces/${t(2)}/findings?cursor=bm9wZQ`)).status).toBe(400);
  });

  it("counts the outcome-rubric grade of runs without a tracer outcome in success, with source judge", async () => {
    // Tracer outcomes: 1..3 failed; 4..6 none. The judge graded 4 (success) and 5 (failure); its grade of 1 loses to the tracer's.
    const all = await get("/api/v1/metrics/success");
    expect(all.body).toMatchObject({ source: "all", runs: 5, successfulRuns: 1, runsWithoutOutcome: 1, outcomeSources: { tracer: 3, judge: 2 } });
    expect(all.body.successRate.estimate).toBeCloseTo(1 / 5, 12); // five single-run tasks: 0, 0, 0, 1, 0
    const code = await get("/api/v1/metrics/success?source=code");
    expect(code.body).toMatchObject({ runs: 3, successfulRuns: 0, runsWithoutOutcome: 3, outcomeSources: { tracer: 3, judge: 0 } });
    expect(code.body.successRate.estimate).toBe(0);
    const judged = await get("/api/v1/metrics/success?source=judge");
    expect(judged.body).toMatchObject({ runs: 2, successfulRuns: 1, runsWithoutOutcome: 4, outcomeSources: { tracer: 0, judge: 2 } });
    expect(judged.body.successRate.estimate).toBeCloseTo(0.5, 12);
  });

  it("filters validation by window and service, and refuses an inverted window", async () => {
    const none = await get(`/api/v1/validation?from=${new Date(NOW - 50 * HOUR).toISOString()}&to=${new Date(NOW - 40 * HOUR).toISOString()}`);
    expect(none.body.labelledTraces).toBe(0);
    expect(none.body.window).toEqual({ from: new Date(NOW - 50 * HOUR).toISOString(), to: new Date(NOW - 40 * HOUR).toISOString() });
    expect((await get("/api/v1/validation?service=svc")).body.labelledTraces).toBe(6);
    expect((await get("/api/v1/validation?service=other")).body.labelledTraces).toBe(0);
    const inverted = await get(`/api/v1/validation?from=${new Date(NOW).toISOString()}&to=${new Date(NOW - HOUR).toISOString()}`);
    expect(inverted.status).toBe(400);
    expect(inverted.body.code).toBe("invalid_window");
  });
});

describe.each(testDatabases())("the default validation bar on $name", ({ create }) => {
  it("leaves a judge unvalidated with fewer than 20 labels, whatever its kappa", async () => {
    const database = await create();
    const app = await buildTestApp(database);
    try {
      await seed(database);
      for (const [n, l] of Object.entries(labels)) {
        await app.inject({ method: "PUT", url: `/api/v1/traces/${t(Number(n))}/labels`, payload: { modes: l.modes, labeller: "ana" } });
      }
      const body = (await app.inject({ method: "GET", url: "/api/v1/validation" })).json();
      expect(body.bar).toEqual({ kappaBar: 0.6, minLabels: 20 });
      const judgeRow = body.modes.find((m: { mode: string; source: string }) => m.mode === "FM-1.3" && m.source === "judge.mast-checklist");
      expect(judgeRow).toMatchObject({ kappa: 1, validated: false, reason: "5 labelled traces; at least 20 needed" });
      const rates = (await app.inject({ method: "GET", url: "/api/v1/metrics/failure-modes" })).json();
      expect(rates.rates.find((r: { mode: string }) => r.mode === "FM-1.3")).toMatchObject({
        validated: false,
        validationReason: "judge.mast-checklist on FM-1.3: 5 labelled traces; at least 20 needed",
      });
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe.each(testDatabases())("judged baseline runs on $name", ({ create }) => {
  it("leave the judge-only rates alone: a baseline run is not the system's, in the numerator or in the denominator", async () => {
    const database = await create();
    const app = await buildTestApp(database);
    const rates = async (url: string) => (await app.inject({ method: "GET", url })).json();
    const fm = (body: { rates: { mode: string; group?: string; numerator: number; denominator: number }[] }, mode: string, group?: string) =>
      body.rates.find((r) => r.mode === mode && (group === undefined || r.group === group));
    try {
      await seed(database);
      const before = {
        judge: await rates("/api/v1/metrics/failure-modes?source=judge"),
        all: await rates("/api/v1/metrics/failure-modes"),
        byAgent: await rates("/api/v1/metrics/failure-modes?groupBy=agent&source=judge"),
        byService: await rates("/api/v1/metrics/failure-modes?groupBy=service&source=judge"),
      };
      // A failed baseline run of the same window and service (trace 8), judged with FM-1.3 and FM-2.2.
      await storeTraceSpan(database, 8, NOW - HOUR);
      await persistTraceScores(
        database,
        PROJECT,
        scoreRecord({ n: 8, startMs: NOW - HOUR, success: false, isBaseline: true, agents: [{ agent: "lead", input: 10, output: 5 }], findings: [] }),
      );
      await judge(database, 8, "mast-checklist", {
        findings: [
          { mode: "FM-1.3", agent: "lead", step: 0 },
          { mode: "FM-2.2", agent: "lead", step: 0 },
        ],
      });
      const judged = await rates("/api/v1/metrics/failure-modes?source=judge");
      expect(judged.baselineRuns).toBe(1);
      expect(judged.judgedTraces).toBe(before.judge.judgedTraces);
      for (const mode of ["FM-1.3", "FM-2.2"]) {
        expect(fm(judged, mode), mode).toMatchObject({ numerator: fm(before.judge, mode)!.numerator, denominator: fm(before.judge, mode)!.denominator });
      }
      // FM-2.2 rests on the judge in the combined rates too.
      expect(fm(await rates("/api/v1/metrics/failure-modes"), "FM-2.2")).toMatchObject({ denominator: fm(before.all, "FM-2.2")!.denominator });
      expect(fm(await rates("/api/v1/metrics/failure-modes?groupBy=agent&source=judge"), "FM-1.3", "lead")).toMatchObject({
        denominator: fm(before.byAgent, "FM-1.3", "lead")!.denominator,
      });
      expect(fm(await rates("/api/v1/metrics/failure-modes?groupBy=service&source=judge"), "FM-1.3")).toMatchObject({
        denominator: fm(before.byService, "FM-1.3")!.denominator,
      });
    } finally {
      await app.close();
      await database.close();
    }
  });
});
