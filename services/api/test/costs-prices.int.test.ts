/**
 * One cost per agent across the API: GET /traces/:id serves the costUsd the
 * worker stored (the figure /scores serves) once the trace is scored, and
 * /prices lists the seeded default prices next to the project's overrides.
 * The trace is scored here with the real pure pipeline (@crux/core scoreTrace)
 * on the real effective price table (loadScoringConfig), as the worker does.
 */
import { scoreTrace } from "@crux/core";
import { normalizedSpan, spanIdOf } from "@crux/core/testing";
import { insertSpanBatch, loadScoringConfig, persistTraceScores, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, buildTestApp } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

const traceId = hexTraceId(0xc057);
const base = 1_760_000_000_000_000_000n;
const at = (ms: number) => base + BigInt(ms) * 1_000_000n;

// lead (gpt-4o: 1M input, 100k output → 2.5 + 1.0 = 3.5 USD) hands to search (an unpriced model → null).
const spans = [
  normalizedSpan({
    traceId,
    spanId: spanIdOf(1),
    parentSpanId: null,
    name: "lead",
    operation: "agent",
    agentName: "lead",
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(100),
  }),
  normalizedSpan({
    traceId,
    spanId: spanIdOf(2),
    parentSpanId: spanIdOf(1),
    name: "chat",
    operation: "llm",
    model: "gpt-4o",
    inputTokens: 1_000_000,
    outputTokens: 100_000,
    startTimeUnixNano: at(1),
    endTimeUnixNano: at(10),
  }),
  normalizedSpan({
    traceId,
    spanId: spanIdOf(3),
    parentSpanId: spanIdOf(1),
    name: "search",
    operation: "agent",
    agentName: "search",
    startTimeUnixNano: at(20),
    endTimeUnixNano: at(90),
  }),
  normalizedSpan({
    traceId,
    spanId: spanIdOf(4),
    parentSpanId: spanIdOf(3),
    name: "chat",
    operation: "llm",
    model: "house-model-x",
    inputTokens: 500,
    outputTokens: 50,
    startTimeUnixNano: at(21),
    endTimeUnixNano: at(30),
  }),
];

describe.each(testDatabases())("costs and prices on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const get = async (url: string) => (await app.inject({ method: "GET", url })).json();

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    await insertSpanBatch(database, PROJECT, spans);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("GET /traces/:id per-agent costUsd is the costUsd of /scores once scored (no cost computed before)", async () => {
    const before = await get(`/api/v1/traces/${traceId}`);
    expect(before.scoring).toEqual({ status: "pending" });

    const config = await loadScoringConfig(database, PROJECT, "svc", null);
    const record = scoreTrace({
      projectId: PROJECT,
      traceId,
      version: 1,
      spans,
      config,
      outcomeOverride: null,
      baselineRun: null,
      validateSchema: () => ({ valid: true, errors: [] }),
      evaluateMilestone: () => false,
    });
    await persistTraceScores(database, PROJECT, record);

    const detail = await get(`/api/v1/traces/${traceId}`);
    const scores = await get(`/api/v1/traces/${traceId}/scores`);
    expect(detail.scoring.status).toBe("scored");
    const detailCost = Object.fromEntries(detail.scoring.agents.map((a: { agent: string; costUsd: number | null }) => [a.agent, a.costUsd]));
    const scoredCost = Object.fromEntries(scores.scores.agents.map((a: { agent: string; costUsd: number | null }) => [a.agent, a.costUsd]));
    expect(detailCost).toEqual(scoredCost);
    expect(detailCost.lead).toBeCloseTo(3.5, 10);
    expect(detailCost.search).toBeNull();
    expect(detail.scoring.totals.costUsd).toBe(scores.scores.totals.costUsd);
    expect(detail.scoring.totals.unpricedModels).toEqual(["house-model-x"]);
    expect(scores.scores.totals.unpricedModels).toEqual(["house-model-x"]);
  });

  it("/prices lists the seeded defaults on a new project; a project price replaces its model's default, deleting it restores it", async () => {
    const initial = (await get("/api/v1/prices")).items as { model: string; source: string; id: string | null; inputPerMTok: number }[];
    expect(initial.length).toBeGreaterThan(20);
    expect(initial.every((p) => p.source === "default" && p.id === null)).toBe(true);
    expect(initial.find((p) => p.model === "gpt-4o")).toEqual({
      model: "gpt-4o",
      inputPerMTok: 2.5,
      outputPerMTok: 10,
      cachedInputPerMTok: 1.25,
      source: "default",
      id: null,
      createdAt: null,
      updatedAt: null,
    });

    const override = await app.inject({ method: "POST", url: "/api/v1/prices", payload: { model: "GPT-4o", inputPerMTok: 5, outputPerMTok: 20 } });
    expect(override.statusCode).toBe(201);
    const added = await app.inject({ method: "POST", url: "/api/v1/prices", payload: { model: "house-model-x", inputPerMTok: 1, outputPerMTok: 1 } });
    expect(added.statusCode).toBe(201);

    const after = (await get("/api/v1/prices")).items as { model: string; source: string; id: string | null; inputPerMTok: number }[];
    expect(after).toHaveLength(initial.length + 1);
    expect(after.filter((p) => p.model === "gpt-4o")).toEqual([
      expect.objectContaining({ source: "project", id: override.json().id, inputPerMTok: 5, cachedInputPerMTok: null }),
    ]);
    expect(after.find((p) => p.model === "house-model-x")).toMatchObject({ source: "project", id: added.json().id });
    // The list is what scoring applies.
    const applied = (await loadScoringConfig(database, PROJECT, null, null)).prices;
    expect(new Set(applied.map((p) => `${p.model}:${p.inputPerMTok}:${p.outputPerMTok}`))).toEqual(
      new Set(after.map((p) => `${p.model}:${p.inputPerMTok}:${(p as unknown as { outputPerMTok: number }).outputPerMTok}`)),
    );

    expect((await app.inject({ method: "DELETE", url: `/api/v1/prices/${override.json().id}` })).statusCode).toBe(204);
    expect(((await get("/api/v1/prices")).items as { model: string; source: string }[]).find((p) => p.model === "gpt-4o")).toMatchObject({
      source: "default",
      inputPerMTok: 2.5,
    });
  });
});
