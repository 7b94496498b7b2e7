/**
 * Details a caller meets: labels checked against the trace with their history kept, the order of
 * per-milestone rates and of trajectories, the OpenAPI summaries, and one message per bad time.
 */
import { persistTraceScores, type Database } from "@crux/db";
import { createInProcessQueue, type JobQueue } from "@crux/queue";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp, storeTraceSpan } from "./harness.ts";
import { hexSpanId, hexTraceId, scoreRecord } from "./score-records.ts";

const t = hexTraceId;

describe.each(testDatabases())("API details on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  // Not started: the test reads what the API enqueued.
  const queue: JobQueue = createInProcessQueue();
  const call = async (method: "GET" | "PUT" | "POST", url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.json() };
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database, { queue });
    // Milestones configured as m3, m1, m2 (not by name).
    const set = await call("POST", "/api/v1/milestone-sets", {
      serviceName: null,
      name: "flow",
      milestones: ["m3", "m1", "m2"].map((id) => ({ id, weight: 1, check: "true" })),
    });
    expect(set.status).toBe(201);
    // Trace 1: scored, agents zeta (step 0) then alpha (step 1). Trace 2: spans stored, not scored.
    await storeTraceSpan(database, 1, NOW - HOUR);
    await persistTraceScores(
      database,
      PROJECT,
      scoreRecord({
        n: 1,
        startMs: NOW - HOUR,
        agents: [
          { agent: "zeta", input: 10, output: 5 },
          { agent: "alpha", input: 10, output: 5 },
        ],
        milestones: { partialCredit: 2 / 3, fullSuccess: false, furthestIndex: 1, passed: [true, true, false] },
      }),
    );
    await storeTraceSpan(database, 2, NOW - HOUR);
  });
  afterAll(async () => {
    await app.close();
    await queue.close(1_000);
    await database.close();
  });

  it("labels naming an agent, span or step the trace does not have are refused with a 400 naming it, and nothing is stored", async () => {
    const url = `/api/v1/traces/${t(1)}/labels`;
    const agent = await call("PUT", url, { decisive: { agent: "ghost" }, labeller: "ana" });
    expect(agent.status).toBe(400);
    expect(agent.body).toEqual({
      code: "invalid_request",
      message: `the labels name what the trace does not have: agent 'ghost' does not act in trace ${t(1)}`,
    });
    const step = await call("PUT", url, { decisive: { agent: "zeta", stepIndex: 7 }, labeller: "ana" });
    expect(step.status).toBe(400);
    expect(step.body.message).toBe(`the labels name what the trace does not have: step 7 is not a step of trace ${t(1)}`);
    const span = await call("PUT", url, { decisive: { spanId: hexSpanId(99) }, labeller: "ana" });
    expect(span.status).toBe(400);
    expect(span.body.message).toContain(`span ${hexSpanId(99)} is not a span of trace ${t(1)}`);
    // Step 1 is alpha's step on span 201; span 1 is the trace's root span, another step.
    const mismatch = await call("PUT", url, { decisive: { spanId: hexSpanId(1), stepIndex: 1 }, labeller: "ana" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toContain(`step 1 is span ${hexSpanId(201)}, not span ${hexSpanId(1)}`);
    const unscored = await call("PUT", `/api/v1/traces/${t(2)}/labels`, { decisive: { stepIndex: 0 }, labeller: "ana" });
    expect(unscored.status).toBe(409);
    expect(unscored.body.message).toMatch(/is not scored yet/);
    expect((await call("GET", url)).body).toEqual({ traceId: t(1), labelled: false, labels: null });

    const ok = await call("PUT", url, { modes: { "FM-1.3": true }, decisive: { agent: "alpha", stepIndex: 1 }, labeller: "ana" });
    expect(ok.status).toBe(200);
  });

  it("a new PUT replaces the labels and keeps the replaced version in their history", async () => {
    const url = `/api/v1/traces/${t(2)}/labels`;
    const first = await call("PUT", url, { modes: { "FM-1.3": true }, note: "first look", labeller: "ana" });
    expect(first.status).toBe(200);
    const second = await call("PUT", url, { modes: { "FM-1.3": false, "FM-3.3": true }, labeller: "ben" });
    expect(second.status).toBe(200);
    expect((await call("GET", url)).body.labels).toMatchObject({ modes: { "FM-1.3": false, "FM-3.3": true }, labeller: "ben" });
    const history = await call("GET", `${url}/history`);
    expect(history.status).toBe(200);
    expect(history.body.items).toEqual([
      {
        modes: { "FM-1.3": true },
        decisive: { agent: null, spanId: null, stepIndex: null },
        note: "first look",
        labeller: "ana",
        updatedAt: first.body.labels.updatedAt,
        replacedAt: expect.any(String),
      },
    ]);
    expect(Date.parse(history.body.items[0].replacedAt)).toBeGreaterThanOrEqual(Date.parse(first.body.labels.updatedAt));
    expect((await call("GET", `/api/v1/traces/${t(9)}/labels/history`)).status).toBe(404);
  });

  it("per-milestone rates come in the configured order, trajectories in the order agents first act", async () => {
    const success = await call("GET", "/api/v1/metrics/success");
    expect(success.body.milestones.perMilestone.map((m: { id: string }) => m.id)).toEqual(["m3", "m1", "m2"]);
    const trajectories = await call("GET", `/api/v1/traces/${t(1)}/trajectories`);
    expect(trajectories.body.items.map((i: { agent: string }) => i.agent)).toEqual(["zeta", "alpha"]);
  });

  it("OpenAPI summaries take the right article; a time that is no date gets one message", async () => {
    const docs = (await call("GET", "/api/docs/json")).body as { paths: Record<string, Record<string, { summary?: string }>> };
    expect(docs.paths["/api/v1/agent-contracts"]!.post!.summary).toBe("Create an agent contract");
    expect(docs.paths["/api/v1/prices"]!.post!.summary).toBe("Create a price");
    const bad = await call("GET", "/api/v1/metrics/agents?from=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("querystring /from: must be an ISO 8601 date-time, e.g. 2026-11-30T12:00:00Z");
  });

  it("a created or replaced alert rule is queued for evaluation at once, not left to the next tick", async () => {
    const body = {
      name: "failures",
      metric: { kind: "success_rate" },
      condition: { kind: "threshold", op: "below", value: 0.9 },
      windowMs: 3_600_000,
    };
    expect(await queue.depth("alerts.evaluate-rule")).toBe(0);
    const created = await call("POST", "/api/v1/alert-rules", body);
    expect(created.status).toBe(201);
    expect(await queue.depth("alerts.evaluate-rule")).toBe(1);
    const other = await call("POST", "/api/v1/alert-rules", { ...body, name: "second" });
    expect(await queue.depth("alerts.evaluate-rule")).toBe(2);
    const replaced = await call("PUT", `/api/v1/alert-rules/${other.body.id}`, { ...body, name: "second, replaced", enabled: false });
    expect(replaced.status).toBe(200);
    expect(await queue.depth("alerts.evaluate-rule")).toBe(2); // a disabled rule is not evaluated
  });
});
