/**
 * GET /traces/:id serves the stored score set (per-agent usage, totals,
 * handoffs, attributions: the rows /scores, /handoffs and /attribution serve)
 * and never recomputes it from the spans: before the first score it says
 * `scoring: { status: "pending" }`, and spans that arrive after a score do not
 * change `scoring` until the worker scores the trace again. The span tree is
 * still built from the spans. Scored with the real pure pipeline, as the
 * worker does.
 */
import { TraceDetail } from "@crux/contracts";
import { scoreTrace } from "@crux/core";
import { normalizedSpan, spanIdOf } from "@crux/core/testing";
import { insertSpanBatch, loadScoringConfig, persistTraceScores, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, buildTestApp } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

const traceId = hexTraceId(0xde7a11);
const base = 1_760_000_000_000_000_000n;
const at = (ms: number) => base + BigInt(ms) * 1_000_000n;

// lead calls a model whose span carries a tracer-reported cost (0.25 USD), then hands off to writer
// through a transfer tool; writer calls gpt-4o (priced from the table: 1,000 in, 100 out).
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
    model: "house-model-x",
    inputTokens: 500,
    outputTokens: 50,
    cost: 0.25,
    startTimeUnixNano: at(1),
    endTimeUnixNano: at(10),
  }),
  normalizedSpan({
    traceId,
    spanId: spanIdOf(3),
    parentSpanId: spanIdOf(1),
    name: "writer",
    operation: "agent",
    agentName: "writer",
    startTimeUnixNano: at(20),
    endTimeUnixNano: at(90),
  }),
  normalizedSpan({
    traceId,
    spanId: spanIdOf(4),
    parentSpanId: spanIdOf(3),
    name: "chat",
    operation: "llm",
    model: "gpt-4o",
    inputTokens: 1_000,
    outputTokens: 100,
    startTimeUnixNano: at(21),
    endTimeUnixNano: at(30),
  }),
];

type Node = { spanId: string; agent: string | null; reportedCostUsd: number | null; children: Node[] };
const flatten = (roots: Node[]) => {
  const out: Node[] = [];
  const walk = (n: Node) => (out.push(n), n.children.forEach(walk));
  roots.forEach(walk);
  return out;
};

describe.each(testDatabases())("trace detail on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const get = async (url: string) => {
    const res = await app.inject({ method: "GET", url });
    expect(res.statusCode, url).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    await insertSpanBatch(database, PROJECT, spans);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("before the first score: scoring is pending, the tree still names each span's agent and its reported cost", async () => {
    const detail = await get(`/api/v1/traces/${traceId}`);
    expect(TraceDetail.parse(detail).scoring).toEqual({ status: "pending" });
    expect(detail).not.toHaveProperty("agents");
    const nodes = Object.fromEntries(flatten(detail.roots).map((n) => [n.spanId, n]));
    expect(nodes[spanIdOf(2)]).toMatchObject({ agent: "lead", reportedCostUsd: 0.25 });
    expect(nodes[spanIdOf(4)]).toMatchObject({ agent: "writer", reportedCostUsd: null });
  });

  it("once scored: the stored per-agent usage, totals, handoffs and attributions, the same as /scores, /handoffs and /attribution", async () => {
    const config = await loadScoringConfig(database, PROJECT, "svc", null);
    const record = scoreTrace({
      projectId: PROJECT,
      traceId,
      version: 1,
      spans,
      config,
      outcomeOverride: { success: false },
      baselineRun: null,
      validateSchema: () => ({ valid: true, errors: [] }),
      evaluateMilestone: () => false,
    });
    await persistTraceScores(database, PROJECT, record);

    const detail = await get(`/api/v1/traces/${traceId}`);
    const scores = await get(`/api/v1/traces/${traceId}/scores`);
    const handoffs = await get(`/api/v1/traces/${traceId}/handoffs`);
    const attribution = await get(`/api/v1/traces/${traceId}/attribution`);
    expect(detail.scoring).toMatchObject({ status: "scored", version: 1, scoredAt: scores.scores.scoredAt });
    expect(detail.scoring.agents).toEqual(scores.scores.agents);
    expect(detail.scoring.totals).toEqual(scores.scores.totals);
    expect(detail.scoring.handoffs).toEqual(handoffs.items);
    expect(detail.scoring.attributions).toEqual(attribution.items);
    expect(detail.scoring.attributions.length).toBeGreaterThan(0);

    // costUsd: the reported 0.25 wins for lead's span; writer's tokens are priced (gpt-4o: 2.5 / 10 USD per M).
    const byAgent = Object.fromEntries(detail.scoring.agents.map((a: { agent: string }) => [a.agent, a]));
    expect(byAgent.lead).toMatchObject({ inputTokens: 500, outputTokens: 50, totalTokens: 550, parentAgent: null });
    expect(byAgent.lead.costUsd).toBeCloseTo(0.25, 12);
    expect(byAgent.writer).toMatchObject({ inputTokens: 1_000, outputTokens: 100, totalTokens: 1_100, parentAgent: "lead" });
    expect(byAgent.writer.costUsd).toBeCloseTo((1_000 * 2.5 + 100 * 10) / 1_000_000, 12);
    expect(detail.scoring.totals).toMatchObject({ inputTokens: 1_500, outputTokens: 150, totalTokens: 1_650, unpricedModels: [] });
    expect(detail.scoring.totals.costUsd).toBeCloseTo(0.25 + 0.0035, 12);
    // The nested agent is a handoff lead → writer, in the handoff shape.
    expect(detail.scoring.handoffs).toEqual([expect.objectContaining({ index: 0, sender: "lead", receiver: "writer", spanId: spanIdOf(3) })]);
  });

  it("spans arriving after the score change the tree, not the stored score set, until the trace is scored again", async () => {
    const before = await get(`/api/v1/traces/${traceId}`);
    await insertSpanBatch(database, PROJECT, [
      normalizedSpan({
        traceId,
        spanId: spanIdOf(5),
        parentSpanId: spanIdOf(1),
        name: "critic",
        operation: "agent",
        agentName: "critic",
        startTimeUnixNano: at(91),
        endTimeUnixNano: at(99),
      }),
      normalizedSpan({
        traceId,
        spanId: spanIdOf(6),
        parentSpanId: spanIdOf(5),
        name: "chat",
        operation: "llm",
        model: "gpt-4o",
        inputTokens: 7_000,
        outputTokens: 700,
        startTimeUnixNano: at(92),
        endTimeUnixNano: at(98),
      }),
    ]);
    const after = await get(`/api/v1/traces/${traceId}`);
    expect(after.trace).toMatchObject({ spanCount: 6, settled: false });
    expect(flatten(after.roots).find((n) => n.spanId === spanIdOf(6))).toMatchObject({ agent: "critic" });
    // Computed per request, the critic and its 7,700 tokens would show up here.
    expect(after.scoring).toEqual(before.scoring);
    expect(after.scoring.agents.map((a: { agent: string }) => a.agent)).toEqual(["lead", "writer"]);
    expect(after.scoring.totals.totalTokens).toBe(1_650);
  });
});
