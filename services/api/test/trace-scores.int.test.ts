import { getOutcomeOverride, getTrace, loadScoringConfig, persistTraceScores, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp, execRaw, storeTraceSpan } from "./harness.ts";
import { hexTraceId, scoreRecord, type RecordSpec } from "./score-records.ts";

const first: RecordSpec = {
  n: 1,
  startMs: NOW - HOUR,
  success: false,
  taskId: "A",
  agents: [
    { agent: "lead", input: 100, output: 50, cost: 0.01 },
    { agent: "search", input: 300, output: 100, cost: 0.03 },
  ],
  findings: [
    { mode: "FM-1.3", agent: "search" },
    { mode: "FM-1.5", agent: "lead" },
    { mode: "FM-3.2", agent: "lead", detector: "error-propagation" },
  ],
};

describe.each(testDatabases())("per-trace score endpoints on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const t1 = hexTraceId(1);
  const get = async (url: string) => {
    const res = await app.inject({ method: "GET", url });
    return { status: res.statusCode, body: res.json() };
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    await storeTraceSpan(database, 1, NOW - HOUR);
    await storeTraceSpan(database, 2, NOW - HOUR); // stored but never scored
    await persistTraceScores(database, PROJECT, scoreRecord(first));
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("serves the stored summary, findings (paginated), attribution, handoffs and trajectories", async () => {
    const scores = await get(`/api/v1/traces/${t1}/scores`);
    expect(scores.status).toBe(200);
    expect(scores.body.scored).toBe(true);
    expect(scores.body.scores.totals).toMatchObject({ inputTokens: 400, outputTokens: 150, totalTokens: 550 });
    expect(scores.body.scores.run).toMatchObject({ success: false, taskId: "A", isBaseline: false });
    expect(scores.body.scores.agents.map((a: { agent: string; tokenShare: number }) => [a.agent, a.tokenShare])).toEqual([
      ["lead", 150 / 550],
      ["search", 400 / 550],
    ]);
    expect(scores.body.scores.findingCount).toBe(3);

    // Each code finding names the detector that produced it.
    const page1 = await get(`/api/v1/traces/${t1}/findings?limit=2`);
    expect(page1.body.items.map((f: { mode: string; detector: string | null }) => [f.mode, f.detector])).toEqual([
      ["FM-1.3", "repetition"],
      ["FM-1.5", "termination"],
    ]);
    const page2 = await get(`/api/v1/traces/${t1}/findings?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.items.map((f: { mode: string; detector: string | null }) => [f.mode, f.detector])).toEqual([["FM-3.2", "error-propagation"]]);
    expect(page2.body.nextCursor).toBeNull();
    // A finding stored before findings named their detector (of a mode several detectors report) serves null.
    await execRaw(database, `UPDATE trace_findings SET detector = NULL WHERE mode = 'FM-3.2' AND trace_id = '${t1}'`);
    expect((await get(`/api/v1/traces/${t1}/findings?limit=2&cursor=${page1.body.nextCursor}`)).body.items).toEqual([
      expect.objectContaining({ mode: "FM-3.2", source: "heuristic", detector: null, judge: null }),
    ]);

    const attribution = await get(`/api/v1/traces/${t1}/attribution`);
    expect(attribution.body.items).toEqual([
      expect.objectContaining({
        method: "first_unrecovered_tool_error",
        agent: "search",
        stepIndex: 0,
        spanId: "0000000000000064",
        reason: "tool failed and nobody retried",
      }),
    ]);
    const handoffs = await get(`/api/v1/traces/${t1}/handoffs`);
    expect(handoffs.body.items).toEqual([expect.objectContaining({ index: 0, sender: "lead", receiver: "search", via: "tool_call" })]);
    const trajectories = await get(`/api/v1/traces/${t1}/trajectories`);
    expect(trajectories.body.items.map((t: { agent: string; steps: unknown[] }) => [t.agent, t.steps.length])).toEqual([
      ["lead", 1],
      ["search", 1],
    ]);
    expect(trajectories.body.items[1].steps[0]).toMatchObject({ kind: "llm", inputTokens: 300, outputTokens: 100 });
  });

  it("404 for an unknown trace, scored:false for a known unscored one, 400 for a malformed id", async () => {
    for (const path of ["scores", "findings", "attribution", "handoffs", "trajectories"]) {
      const res = await get(`/api/v1/traces/${"f".repeat(32)}/${path}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    const unscored = await get(`/api/v1/traces/${hexTraceId(2)}/findings`);
    expect(unscored.body).toEqual({ traceId: hexTraceId(2), scored: false, items: [], nextCursor: null });
    expect((await get(`/api/v1/traces/${hexTraceId(2)}/scores`)).body).toEqual({ traceId: hexTraceId(2), scored: false, scores: null });
    expect((await get(`/api/v1/traces/xyz/scores`)).status).toBe(400);
  });

  it("replaces the whole set atomically: a second persist leaves only its rows; an older version is ignored", async () => {
    const second = scoreRecord({
      ...first,
      version: 2,
      success: true,
      agents: [{ agent: "solo", input: 10, output: 5 }],
      findings: [{ mode: "FM-2.5", agent: "solo" }],
    });
    await persistTraceScores(database, PROJECT, second);
    const findings = await get(`/api/v1/traces/${t1}/findings`);
    expect(findings.body.items.map((f: { mode: string }) => f.mode)).toEqual(["FM-2.5"]);
    expect((await get(`/api/v1/traces/${t1}/trajectories`)).body.items.map((t: { agent: string }) => t.agent)).toEqual(["solo"]);
    expect((await get(`/api/v1/traces/${t1}/handoffs`)).body.items).toEqual([]);
    const rates = (await get("/api/v1/metrics/failure-modes")).body.rates;
    expect(rates.find((r: { mode: string }) => r.mode === "FM-1.3").numerator).toBe(0);
    expect(rates.find((r: { mode: string }) => r.mode === "FM-2.5").numerator).toBe(1);
    const agents = (await get("/api/v1/metrics/agents")).body.agents;
    expect(agents.map((a: { agent: string }) => a.agent)).toEqual(["solo"]);

    await persistTraceScores(database, PROJECT, scoreRecord({ ...first, version: 1 }));
    const after = await get(`/api/v1/traces/${t1}/scores`);
    expect(after.body.scores.version).toBe(2);
    expect(after.body.scores.run.success).toBe(true);
  });

  it("POST outcome stores the override, merges later fields, stores a score request without re-opening the trace (202); unknown trace 404", async () => {
    const before = (await getTrace(database, PROJECT, t1))!.trace;
    const res = await app.inject({ method: "POST", url: `/api/v1/traces/${t1}/outcome`, payload: { success: true, taskId: "task-9" } });
    expect(res.statusCode).toBe(202);
    // No queue in this app: the re-score is left to the sweeper (outcome-rescore.int.test.ts covers the queue).
    expect(res.json()).toEqual({ traceId: t1, override: { success: true, taskId: "task-9" }, rescore: "pending", queued: false });
    const again = await app.inject({ method: "POST", url: `/api/v1/traces/${t1}/outcome`, payload: { success: false, isBaseline: true } });
    expect(again.json().override).toEqual({ success: false, taskId: "task-9", isBaseline: true });
    expect(await getOutcomeOverride(database, PROJECT, t1)).toEqual({ success: false, taskId: "task-9", isBaseline: true });
    const after = (await getTrace(database, PROJECT, t1))!.trace;
    // The span set did not change: only the score stage runs again (the worker's sweeper enqueues the request).
    expect(after.scoreRequestedAt).toBeInstanceOf(Date);
    expect(after.scoreRequestedAt!.getTime()).toBeGreaterThan(before.scoreRequestedAt?.getTime() ?? 0);
    expect({ dirty: after.dirty, lastReceivedAt: after.lastReceivedAt }).toEqual({ dirty: before.dirty, lastReceivedAt: before.lastReceivedAt });

    expect((await app.inject({ method: "POST", url: `/api/v1/traces/${"e".repeat(32)}/outcome`, payload: { success: true } })).statusCode).toBe(404);
    expect((await app.inject({ method: "POST", url: `/api/v1/traces/${t1}/outcome`, payload: {} })).statusCode).toBe(400);
    expect((await app.inject({ method: "POST", url: `/api/v1/traces/${t1}/outcome`, payload: { success: "yes" } })).statusCode).toBe(400);
    expect((await app.inject({ method: "POST", url: `/api/v1/traces/${t1}/outcome`, payload: { bogus: 1 } })).statusCode).toBe(400);
    // loadScoringConfig is unaffected by outcomes (sanity: it still answers for the project).
    expect((await loadScoringConfig(database, PROJECT, "svc", "task-9")).milestoneSet).toBeNull();
  });
  it("serves an agent whose tracer reported no tokens as not reported (null, with what to add), never 0", async () => {
    const t3 = hexTraceId(3);
    await storeTraceSpan(database, 3, NOW - HOUR);
    await persistTraceScores(
      database,
      PROJECT,
      scoreRecord({
        n: 3,
        startMs: NOW - HOUR,
        agents: [
          { agent: "booker", input: 30, output: 10, cost: 0.001 },
          { agent: "planner", input: 0, output: 0, llmCalls: 0, toolCalls: 2, cost: null, tokensReported: false },
        ],
      }),
    );
    const agents = (await get(`/api/v1/traces/${t3}/scores`)).body.scores.agents;
    expect(agents).toEqual([
      expect.objectContaining({ agent: "booker", inputTokens: 30, outputTokens: 10, totalTokens: 40, tokensReported: true, tokensNotReported: null }),
      expect.objectContaining({
        agent: "planner",
        inputTokens: null,
        outputTokens: null,
        cachedTokens: null,
        totalTokens: null,
        costUsd: null,
        tokensReported: false,
        tokensNotReported: expect.stringContaining("no model calls"),
      }),
    ]);
    // The trace view serves the same per-agent shape.
    const detail = await get(`/api/v1/traces/${t3}`);
    expect(detail.body.scoring.agents.find((a: { agent: string }) => a.agent === "planner")).toMatchObject({ inputTokens: null, tokensReported: false });
  });
});
