/**
 * POST /traces/:id/outcome enqueues the re-score at once (trace.score, the
 * worker's key `${projectId}:${traceId}`, delay 0) on a real queue: the
 * in-process one and BullMQ on Redis. The span set did not change, so the
 * trace is not re-settled. No sweeper runs here: the consumer below re-scores
 * like the worker's score stage does (the frozen trace → core scoreTrace on
 * the project's config with the outcome override → persistTraceScores →
 * clearScoreRequest), so "re-scored within seconds" is measured on stored
 * scores. With the queue unreachable the answer is still 202 and the score
 * request stays stored for the worker's sweeper.
 */
import { randomUUID } from "node:crypto";
import { scoreTrace, spanSetHash } from "@crux/core";
import { normalizedSpan, spanIdOf } from "@crux/core/testing";
import {
  clearScoreRequest,
  getOutcomeOverride,
  getTrace,
  insertSpanBatch,
  listSpanIds,
  loadScoringConfig,
  markTraceSettled,
  persistTraceScores,
  type Database,
} from "@crux/db";
import { addContent } from "@crux/otlp";
import { createBullmqQueue, type JobQueue } from "@crux/queue";
import { testDatabases, testQueues } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, buildTestApp, capturedLogger } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

const queues = testQueues({ queuePrefix: "test-outcome" });
const cases = testDatabases().flatMap((db) => queues.map((q) => ({ name: `${db.name} + ${q.name}`, db, q })));

async function storeTrace(database: Database, traceId: string): Promise<void> {
  const base = 1_760_000_000_000_000_000n;
  await insertSpanBatch(database, PROJECT, [
    normalizedSpan({
      traceId,
      spanId: spanIdOf(1),
      parentSpanId: null,
      name: "lead",
      operation: "agent",
      agentName: "lead",
      startTimeUnixNano: base,
      endTimeUnixNano: base + 5_000_000n,
    }),
    normalizedSpan({
      traceId,
      spanId: spanIdOf(2),
      parentSpanId: spanIdOf(1),
      name: "chat",
      operation: "llm",
      model: "gpt-4o",
      inputTokens: 10,
      outputTokens: 5,
      startTimeUnixNano: base + 1_000n,
      endTimeUnixNano: base + 2_000_000n,
    }),
  ]);
}

/** What the worker's settle stage does: freeze the span set (the score job it would enqueue is left out). */
async function freeze(database: Database, projectId: string, traceId: string): Promise<void> {
  const found = await getTrace(database, projectId, traceId);
  await markTraceSettled(database, projectId, traceId, found!.trace.lastReceivedAt, spanSetHash(await listSpanIds(database, projectId, traceId)));
}

/** What the worker's trace.score stage does, reduced to the scoring path. */
async function score(database: Database, projectId: string, traceId: string): Promise<void> {
  const found = await getTrace(database, projectId, traceId);
  if (!found || found.trace.dirty || found.trace.spanSetHash === null) return;
  const override = await getOutcomeOverride(database, projectId, traceId);
  const config = await loadScoringConfig(database, projectId, found.trace.serviceName, override?.taskId ?? null);
  const record = scoreTrace({
    projectId,
    traceId,
    version: found.trace.settleVersion,
    spans: found.spans.map(addContent),
    config,
    outcomeOverride: override,
    baselineRun: null,
    validateSchema: () => ({ valid: true, errors: [] }),
    evaluateMilestone: () => false,
  });
  await persistTraceScores(database, projectId, record);
  if (found.trace.scoreRequestedAt) await clearScoreRequest(database, projectId, traceId, found.trace.scoreRequestedAt);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(cases)("outcome re-score on $name", ({ db, q }) => {
  let database: Database;
  let queue: JobQueue;
  let purge: () => Promise<unknown>;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const scored: string[] = [];

  beforeAll(async () => {
    database = await db.create();
    ({ queue, purge } = q.create());
    queue.start({
      "trace.score": async (p) => {
        await score(database, p.projectId, p.traceId);
        scored.push(p.traceId);
      },
    });
    app = await buildTestApp(database, { queue });
  });
  afterAll(async () => {
    await app.close();
    await queue.close(5_000);
    await purge();
    await database.close();
  });

  it("the outcome is re-scored within seconds by the score stage, replacing its pending job (same key); the trace is not re-settled", async () => {
    const traceId = hexTraceId(0x0c1);
    await storeTrace(database, traceId);
    await freeze(database, PROJECT, traceId);
    // A score job of the trace still waiting (here a long delay): the outcome's job replaces it.
    await queue.enqueue("trace.score", { projectId: PROJECT, traceId }, { delayMs: 600_000 });
    expect((await app.inject({ method: "GET", url: `/api/v1/traces/${traceId}/scores` })).json().scored).toBe(false);

    const started = Date.now();
    const res = await app.inject({ method: "POST", url: `/api/v1/traces/${traceId}/outcome`, payload: { success: true, taskId: "t-1" } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ traceId, rescore: "pending", queued: true });

    const run = await until(
      "scores with the outcome",
      async () => {
        // The consumer clears the score request after storing the scores: wait for it to finish, not
        // only for the scores to be readable, before reading the request back.
        if (!scored.includes(traceId)) return undefined;
        const body = (await app.inject({ method: "GET", url: `/api/v1/traces/${traceId}/scores` })).json();
        return body.scored ? body.scores.run : undefined;
      },
      5_000,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(run).toMatchObject({ success: true, taskId: "t-1" });
    const trace = (await getTrace(database, PROJECT, traceId))!.trace;
    expect(trace).toMatchObject({ dirty: false, settleVersion: 1, scoreRequestedAt: null });
    // The 10-minute job was replaced, not kept next to the new one; nothing was sent to the settle stage.
    expect(await queue.depth("trace.score")).toBe(0);
    expect(await queue.depth("trace.settle")).toBe(0);
    expect(scored.filter((t) => t === traceId)).toHaveLength(1);

    // A second outcome re-scores again.
    await app.inject({ method: "POST", url: `/api/v1/traces/${traceId}/outcome`, payload: { success: false } });
    await until(
      "the second outcome scored",
      async () => {
        const body = (await app.inject({ method: "GET", url: `/api/v1/traces/${traceId}/scores` })).json();
        return body.scores.run.success === false ? true : undefined;
      },
      5_000,
    );
  });
});

describe.each(testDatabases())("outcome with the queue unreachable on $name", ({ create }) => {
  let database: Database;
  let queue: JobQueue;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const captured = capturedLogger("warn");

  beforeAll(async () => {
    database = await create();
    queue = createBullmqQueue({ redisUrl: "redis://127.0.0.1:1", prefix: `test-${randomUUID()}`, commandTimeoutMs: 500 });
    app = await buildTestApp(database, { queue, log: captured.log });
  });
  afterAll(async () => {
    await app.close();
    await queue.close(1_000);
    await database.close();
  });

  it("still 202 (queued: false), the override and the score request stored for the sweeper; one warn line", async () => {
    const traceId = hexTraceId(0x0c2);
    await storeTrace(database, traceId);
    await freeze(database, PROJECT, traceId);
    const before = (await getTrace(database, PROJECT, traceId))!.trace.scoreRequestedAt!;
    const res = await app.inject({ method: "POST", url: `/api/v1/traces/${traceId}/outcome`, payload: { success: true } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ queued: false, override: { success: true } });
    expect(await getOutcomeOverride(database, PROJECT, traceId)).toEqual({ success: true });
    const after = (await getTrace(database, PROJECT, traceId))!.trace;
    expect(after.dirty).toBe(false);
    expect(after.scoreRequestedAt!.getTime()).toBeGreaterThan(before.getTime());
    expect(captured.lines.filter((l) => l.includes("re-score enqueue failed"))).toHaveLength(1);
  });
});
