import { defaultBootstrapSeed, wilsonInterval } from "@crux/core";
import { baselineRepository, persistTraceScores, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp } from "./harness.ts";
import { scoreRecord, type RecordSpec } from "./score-records.ts";

/** Four traces in the default window (the 24 h before NOW) and one older; see each expectation for the arithmetic. */
export const seedSpecs: RecordSpec[] = [
  {
    n: 1,
    startMs: NOW - 1 * HOUR,
    success: false,
    taskId: "A",
    agents: [
      { agent: "lead", input: 100, output: 50, cost: 0.01 },
      { agent: "search", input: 300, output: 100, cost: 0.03 },
    ],
    findings: [
      { mode: "FM-1.3", agent: "search" },
      { mode: "FM-1.3", agent: "search" },
      { mode: "FM-3.2", agent: "lead", source: "contract" },
    ],
    tokenMultiplier: { value: 2, baseline: 275, source: "baseline_run" },
    costMultiplier: { value: 4, baseline: 0.01, source: "baseline_run" },
    milestones: { partialCredit: 0.6, fullSuccess: false, furthestIndex: 2, passed: [true, true, true, false, false] },
  },
  {
    n: 2,
    startMs: NOW - 2 * HOUR,
    success: true,
    taskId: "A",
    agents: [{ agent: "lead", input: 200, output: 100, cost: 0.02 }],
    findings: [{ mode: "FM-3.2", agent: "lead" }],
    tokenMultiplier: { value: 2, baseline: 150, source: "baseline_run" },
    milestones: { partialCredit: 1, fullSuccess: true, furthestIndex: 4, passed: [true, true, true, true, true] },
  },
  {
    n: 3,
    startMs: NOW - 3 * HOUR,
    service: "other",
    success: false,
    taskId: "B",
    agents: [{ agent: "lead", input: 1000, output: 0, cost: null }],
    findings: [{ mode: "FM-1.3", agent: "lead" }],
    tokenMultiplier: { value: 0.5, baseline: 2000, source: "configured" },
  },
  { n: 4, startMs: NOW - 4 * HOUR, success: true, taskId: "A", isBaseline: true, agents: [{ agent: "solo", input: 250, output: 50, cost: 0.005 }] },
  {
    n: 5,
    startMs: NOW - 30 * HOUR,
    success: false,
    taskId: "C",
    agents: [{ agent: "lead", input: 5000, output: 5000 }],
    findings: [{ mode: "FM-1.1", agent: "lead" }],
  },
];

// No contract is configured here: FM-1.3 has a config-free detector, and FM-3.2 config-free heuristics (no verifier contract).
// No judge in these projects: every rate is validated (nothing unvalidated counts in it).
const byRepetition = { measured: true, detectors: ["repetition"], reason: null, validated: true, validationReason: null };
const byVerificationHeuristics = {
  measured: true,
  detectors: ["inferred-verification", "error-propagation"],
  reason: null,
  validated: true,
  validationReason: null,
};

describe.each(testDatabases())("metrics endpoints on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const get = async (url: string) => {
    const res = await app.inject({ method: "GET", url });
    return { status: res.statusCode, body: res.json() };
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    for (const spec of seedSpecs) await persistTraceScores(database, PROJECT, scoreRecord(spec));
    // Task B has no baseline run: its multiplier is measured against this configured figure when read.
    await baselineRepository.create(database, PROJECT, { taskId: "B", serviceName: null, tokens: 2000, costUsd: null });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("failure-mode rates: traces with a finding of the mode over traces in scope (default window = last 24 h)", async () => {
    const { status, body } = await get("/api/v1/metrics/failure-modes");
    expect(status).toBe(200);
    expect(body.window).toEqual({ from: new Date(NOW - 24 * HOUR).toISOString(), to: new Date(NOW).toISOString() });
    expect(body.scopeTraces).toBe(3); // trace 5 is 30 h old; trace 4 is the baseline run
    const byMode = Object.fromEntries(body.rates.map((r: { mode: string }) => [r.mode, r]));
    expect(body.rates).toHaveLength(14);
    // Trace 1 has FM-1.3 twice: it counts once. Trace 4 is the baseline run: not the system, not in scope.
    expect(body.baselineRuns).toBe(1);
    expect(byMode["FM-1.3"]).toEqual({ group: null, mode: "FM-1.3", category: "FC1", numerator: 2, denominator: 3, rate: 2 / 3, ...byRepetition });
    expect(byMode["FM-3.2"]).toMatchObject({ numerator: 2, denominator: 3, rate: 2 / 3, ...byVerificationHeuristics });
    // No handoff contract with a schema: nothing measures FM-1.1, so its rate is unknown, not 0.
    expect(byMode["FM-1.1"]).toMatchObject({ numerator: 0, denominator: 3, rate: null, measured: false });
    // Failed traces: 1 and 3. Both have FM-1.3; only trace 1 has FM-3.2.
    expect(body.failed.traces).toBe(2);
    expect(body.failed.modes).toEqual([
      { mode: "FM-1.3", traces: 2, share: 1 },
      { mode: "FM-3.2", traces: 1, share: 0.5 },
    ]);
    expect(body.sources).toEqual([
      { mode: "FM-1.3", source: "heuristic", kind: "code", findings: 3, traces: 2, validated: null, validationReason: null },
      { mode: "FM-3.2", source: "contract", kind: "code", findings: 1, traces: 1, validated: null, validationReason: null },
      { mode: "FM-3.2", source: "heuristic", kind: "code", findings: 1, traces: 1, validated: null, validationReason: null },
    ]);
  });

  it("explicit window, service and agent filters change the scope", async () => {
    const wide = await get(`/api/v1/metrics/failure-modes?from=${new Date(NOW - 48 * HOUR).toISOString()}&to=${new Date(NOW).toISOString()}`);
    expect(wide.body.scopeTraces).toBe(4);
    // FM-1.1 needs a handoff contract no one configured, yet trace 5 has one: it was measured when that trace was scored.
    expect(wide.body.rates.find((r: { mode: string }) => r.mode === "FM-1.1")).toMatchObject({
      numerator: 1,
      denominator: 4,
      rate: 0.25,
      measured: true,
      detectors: ["handoff-contracts"],
      reason:
        "found in scope, but nothing measures it under the current configuration (needs a handoff contract with a jsonSchema; none configured for this project)",
    });

    const svc = await get("/api/v1/metrics/failure-modes?service=svc");
    expect(svc.body.scopeTraces).toBe(2);
    expect(svc.body.rates.find((r: { mode: string }) => r.mode === "FM-1.3")).toMatchObject({ numerator: 1, denominator: 2 });

    // Agent scope: traces search took part in (1), and only search's findings.
    const search = await get("/api/v1/metrics/failure-modes?agent=search");
    expect(search.body.scopeTraces).toBe(1);
    const rates = Object.fromEntries(search.body.rates.map((r: { mode: string; numerator: number }) => [r.mode, r.numerator]));
    expect(rates["FM-1.3"]).toBe(1);
    expect(rates["FM-3.2"]).toBe(0);
  });

  it("groups by category (each row's category in `category`), service and agent; agent groups paginate without gaps", async () => {
    const cat = await get("/api/v1/metrics/failure-modes?groupBy=category");
    expect(cat.body.rates).toEqual([
      {
        group: null,
        mode: "FC1",
        category: "FC1",
        numerator: 2,
        denominator: 3,
        rate: 2 / 3,
        measured: true,
        detectors: ["repetition", "termination"],
        reason: "not measured: FM-1.1, FM-1.2, FM-1.4",
        validated: true,
        validationReason: null,
      },
      {
        group: null,
        mode: "FC2",
        category: "FC2",
        numerator: 0,
        denominator: 3,
        rate: 0,
        measured: true,
        detectors: ["ignored-input"],
        reason: "not measured: FM-2.1, FM-2.2, FM-2.3, FM-2.4, FM-2.6",
        validated: true,
        validationReason: null,
      },
      {
        group: null,
        mode: "FC3",
        category: "FC3",
        numerator: 2,
        denominator: 3,
        rate: 2 / 3,
        measured: true,
        detectors: ["premature-stop", "inferred-verification", "error-propagation"],
        reason: null,
        validated: true,
        validationReason: null,
      },
    ]);
    const svc = await get("/api/v1/metrics/failure-modes?groupBy=service");
    expect(svc.body.rates).toEqual([
      { group: "other", mode: "FM-1.3", category: "FC1", numerator: 1, denominator: 1, rate: 1, ...byRepetition },
      { group: "svc", mode: "FM-1.3", category: "FC1", numerator: 1, denominator: 2, rate: 1 / 2, ...byRepetition },
      { group: "svc", mode: "FM-3.2", category: "FC3", numerator: 2, denominator: 2, rate: 1, ...byVerificationHeuristics },
    ]);
    const page1 = await get("/api/v1/metrics/failure-modes?groupBy=agent&limit=2");
    expect(page1.body.rates).toEqual([
      { group: "lead", mode: "FM-1.3", category: "FC1", numerator: 1, denominator: 3, rate: 1 / 3, ...byRepetition },
      { group: "lead", mode: "FM-3.2", category: "FC3", numerator: 2, denominator: 3, rate: 2 / 3, ...byVerificationHeuristics },
    ]);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    const page2 = await get(`/api/v1/metrics/failure-modes?groupBy=agent&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.rates).toEqual([{ group: "search", mode: "FM-1.3", category: "FC1", numerator: 1, denominator: 1, rate: 1, ...byRepetition }]);
    expect(page2.body.nextCursor).toBeNull();
  });

  it("per-agent totals, shares over all agents, pagination and an hourly series", async () => {
    const page1 = await get("/api/v1/metrics/agents?limit=2&bucket=1h");
    expect(page1.status).toBe(200);
    // The baseline run (trace 4, agent solo) is not the system: in no total and no share.
    expect(page1.body.totals).toMatchObject({ agents: 2, traces: 3, inputTokens: 1600, outputTokens: 250, totalTokens: 1850, unpricedRows: 1 });
    expect(page1.body.totals).toMatchObject({ tokensReported: true, tokensNotReportedRows: 0 });
    expect(page1.body.totals.costUsd).toBeCloseTo(0.06, 10);
    const [lead, search] = page1.body.agents;
    expect(lead).toMatchObject({ agent: "lead", inputTokens: 1300, outputTokens: 150, totalTokens: 1450, traces: 3, llmCalls: 3, unpricedRows: 1 });
    expect(lead.costUsd).toBeCloseTo(0.03, 10);
    expect(lead.tokenShare).toBeCloseTo(1450 / 1850, 12);
    expect(search).toMatchObject({ agent: "search", totalTokens: 400, traces: 1 });
    expect(search.tokenShare).toBeCloseTo(400 / 1850, 12);
    expect(search.costShare).toBeCloseTo(0.03 / 0.06, 10);
    // Series: lead's traces started 1, 2 and 3 hours before NOW (buckets 23, 22, 21 of the 24 h window).
    const leadPoints = page1.body.series.filter((p: { agent: string }) => p.agent === "lead");
    expect(leadPoints.map((p: { bucketStart: string; totalTokens: number }) => [p.bucketStart, p.totalTokens])).toEqual([
      [new Date(NOW - 3 * HOUR).toISOString(), 1000],
      [new Date(NOW - 2 * HOUR).toISOString(), 300],
      [new Date(NOW - 1 * HOUR).toISOString(), 150],
    ]);
    expect(page1.body.series.some((p: { agent: string }) => p.agent === "solo")).toBe(false);

    expect(page1.body.agents.map((a: { agent: string }) => a.agent)).toEqual(["lead", "search"]);
    expect(page1.body.nextCursor).toBeNull();
    const page1of1 = await get("/api/v1/metrics/agents?limit=1");
    const page2 = await get(`/api/v1/metrics/agents?limit=1&cursor=${page1of1.body.nextCursor}`);
    expect(page2.body.agents.map((a: { agent: string }) => a.agent)).toEqual(["search"]);
    expect(page2.body.nextCursor).toBeNull();
    expect(page2.body.series).toBeNull();

    const onlySvc = await get("/api/v1/metrics/agents?service=other");
    expect(onlySvc.body.agents).toEqual([expect.objectContaining({ agent: "lead", totalTokens: 1000, tokenShare: 1, unpricedRows: 1 })]);
  });

  it("multipliers per task and overall, with how the baseline was found", async () => {
    const { status, body } = await get("/api/v1/metrics/cost-multiplier");
    expect(status).toBe(200);
    expect(body.overall).toMatchObject({ runs: 3, baselineRuns: 1, tasks: 2 });
    expect(body.overall.tokens).toMatchObject({ runsWithBaseline: 3, source: "mixed", sources: { baseline_run: 2, configured: 1, unknown: 0 } });
    expect(body.overall.tokens.value).toBeCloseTo((550 / 300 + 300 / 300 + 1000 / 2000) / 3, 12);
    expect(body.overall.tokens.observed).toBeCloseTo((550 + 300 + 1000) / 3, 9);
    expect(body.overall.tokens.baseline).toBeCloseTo((300 + 300 + 2000) / 3, 9);
    expect(body.overall.tokens.ratioOfTotals).toBeCloseTo(1850 / 2600, 12);
    expect(body.overall.cost).toMatchObject({ runsWithBaseline: 2, source: "mixed", sources: { baseline_run: 2, configured: 0, unknown: 1 } });
    expect(body.overall.cost.value).toBeCloseTo((0.04 / 0.005 + 0.02 / 0.005) / 2, 9);
    const [a, b] = body.tasks;
    expect(a).toMatchObject({ taskId: "A", runs: 2, baselineRuns: 1, tokens: { observed: 425, baseline: 300, runsWithBaseline: 2, source: "baseline_run" } });
    expect(a.tokens.value).toBeCloseTo((550 / 300 + 1) / 2, 12);
    expect(b).toMatchObject({ taskId: "B", runs: 1, baselineRuns: 0, tokens: { value: 0.5, observed: 1000, baseline: 2000, source: "configured" } });
    const paged = await get("/api/v1/metrics/cost-multiplier?limit=1");
    expect(paged.body.tasks.map((t: { taskId: string }) => t.taskId)).toEqual(["A"]);
    const next = await get(`/api/v1/metrics/cost-multiplier?limit=1&cursor=${paged.body.nextCursor}`);
    expect(next.body.tasks.map((t: { taskId: string }) => t.taskId)).toEqual(["B"]);
    expect(next.body.nextCursor).toBeNull();
  });

  it("success rate is the mean over tasks, with the interval core gives for these runs", async () => {
    const { status, body } = await get("/api/v1/metrics/success");
    expect(status).toBe(200);
    // Task A: runs 1 (fail), 2 (ok) → 1/2; task B: run 3 (fail) → 0. Mean over tasks: 1/4 (per run it would be 1/3).
    // Run 4 (ok) is the baseline: the single-agent reference, not the system, so it is left out.
    expect(body.successRate.estimate).toBeCloseTo(1 / 4, 12);
    expect(body).toMatchObject({ runs: 3, successfulRuns: 1, runsWithoutOutcome: 0, baselineRuns: 1 });
    // Two tasks are too few for a bootstrap: Wilson's interval over the tasks, never a zero-width one.
    expect(body.successRate).toMatchObject({ tasks: 2, runs: 3, seed: defaultBootstrapSeed, confidence: 0.95, method: "wilson", iterations: 0 });
    const expected = wilsonInterval(1 / 4, 2, 0.95);
    expect(body.successRate.lower).toBeCloseTo(expected.lower, 12);
    expect(body.successRate.upper).toBeCloseTo(expected.upper, 12);
    expect(body.successRate.lower).toBeLessThanOrEqual(body.successRate.estimate);
    expect(body.successRate.upper).toBeGreaterThanOrEqual(body.successRate.estimate);
    expect(body.milestones).toMatchObject({ traces: 2, meanPartialCredit: 0.8, fullSuccessRate: 0.5, meanFurthestIndex: 3 });
    expect(body.milestones.perMilestone).toHaveLength(5);
    expect(body.milestones.perMilestone[0]).toEqual({ id: "m1", traces: 2, passed: 2, passRate: 1 });
    expect(body.milestones.perMilestone[3]).toEqual({ id: "m4", traces: 2, passed: 1, passRate: 0.5 });
    const none = await get(`/api/v1/metrics/success?service=nothing-here`);
    expect(none.body.successRate).toBeNull();
  });

  it("rejects an inverted window, too many buckets, a bad bucket and a foreign cursor with 400", async () => {
    const inverted = await get(`/api/v1/metrics/agents?from=${new Date(NOW).toISOString()}&to=${new Date(NOW - HOUR).toISOString()}`);
    expect(inverted.status).toBe(400);
    expect(inverted.body.code).toBe("invalid_window");
    const buckets = await get("/api/v1/metrics/agents?bucket=1m");
    expect(buckets.status).toBe(400);
    expect(buckets.body).toMatchObject({ code: "too_many_buckets" });
    expect(buckets.body.message).toContain("1440 buckets");
    expect((await get("/api/v1/metrics/agents?bucket=2h")).status).toBe(400);
    const cursor = await get("/api/v1/metrics/agents?cursor=bm90LWEtY3Vyc29y");
    expect(cursor.status).toBe(400);
    expect(cursor.body.code).toBe("invalid_cursor");
    expect((await get("/api/v1/metrics/success?from=yesterday")).status).toBe(400);
  });

  it("the metrics routes are in the OpenAPI document", async () => {
    const res = await app.inject({ method: "GET", url: "/api/docs/json" });
    const paths = Object.keys(res.json().paths);
    for (const p of [
      "/api/v1/metrics/failure-modes",
      "/api/v1/metrics/agents",
      "/api/v1/metrics/cost-multiplier",
      "/api/v1/metrics/success",
      "/api/v1/traces/{traceId}/outcome",
      "/api/v1/prices/{id}",
    ]) {
      expect(paths).toContain(p);
    }
  });
});
