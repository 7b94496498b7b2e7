/**
 * POST /traces/:id/outcome enqueues the re-score at once (trace.settle, the
 * receiver's key `${projectId}:${traceId}`, delay 0) on a real queue: the
 * in-process one and BullMQ on Redis. No sweeper runs here: the consumer
 * below re-scores like the worker does (getTrace → core scoreTrace on the
 * project's config with the outcome override → persistTraceScores →
 * markTraceSettled), so "re-scored within seconds" is measured on stored
 * scores. With the queue unreachable the answer is still 202 and the trace
 * stays dirty for the worker's sweeper.
 */
import { randomUUID } from "node:crypto";
import { scoreTrace } from "@crux/core";
import { normalizedSpan, spanIdOf } from "@crux/core/testing";
import { getOutcomeOverride, getTrace, insertSpanBatch, loadScoringConfig, markTraceSettled, persistTraceScores, type Database } from "@crux/db";
import { createBullmqQueue, createInProcessQueue, purgeQueuePrefix, type JobQueue } from "@crux/queue";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, buildTestApp, capturedLogger } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

const redisUrl = process.env.REDIS_URL;
const queues: { name: string; make(): { queue: JobQueue; purge(): Promise<unknown> } }[] = [
  { name: "in-process", make: () => ({ queue: createInProcessQueue(), purge: async () => {} }) },
  ...(redisUrl
    ? [
        {
          name: "bullmq",
          make: () => {
            const prefix = `test-${randomUUID()}`;
            return { queue: createBullmqQueue({ redisUrl, prefix }), purge: () => purgeQueuePrefix(redisUrl, prefix) };
          },
        },
      ]
    : []),
];
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

/** What the worker's trace.settle processor does, reduced to the scoring path. */
async function settle(database: Database, projectId: string, traceId: string): Promise<void> {
  const found = await getTrace(database, projectId, traceId);
  if (!found || !found.trace.dirty) return;
  const override = await getOutcomeOverride(database, projectId, traceId);
  const config = await loadScoringConfig(database, projectId, found.trace.serviceName, override?.taskId ?? null);
  const record = scoreTrace({
    projectId,
    traceId,
    version: found.trace.settleVersion + 1,
    spans: found.spans,
    config,
    outcomeOverride: override,
    baselineRun: null,
    validateSchema: () => ({ valid: true, errors: [] }),
    evaluateMilestone: () => false,
  });
  await persistTraceScores(database, projectId, record);
  await markTraceSettled(database, projectId, traceId, found.trace.lastReceivedAt);
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
  const settled: string[] = [];

  beforeAll(async () => {
    database = await db.create();
    ({ queue, purge } = q.make());
    queue.start({
      "trace.settle": async (p) => {
        await settle(database, p.projectId, p.traceId);
        settled.push(p.traceId);
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

  it("the outcome is re-scored within seconds, replacing the receiver's pending settle job (same key)", async () => {
    const traceId = hexTraceId(0x0c1);
    await storeTrace(database, traceId);
    // As the receiver would after ingest: the settle job waits out the quiet period (here a long one).
    await queue.enqueue("trace.settle", { projectId: PROJECT, traceId }, { delayMs: 600_000 });
    expect((await app.inject({ method: "GET", url: `/api/v1/traces/${traceId}/scores` })).json().scored).toBe(false);

    const started = Date.now();
    const res = await app.inject({ method: "POST", url: `/api/v1/traces/${traceId}/outcome`, payload: { success: true, taskId: "t-1" } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ traceId, rescore: "pending", queued: true });

    const run = await until(
      "scores with the outcome",
      async () => {
        const body = (await app.inject({ method: "GET", url: `/api/v1/traces/${traceId}/scores` })).json();
        return body.scored ? body.scores.run : undefined;
      },
      5_000,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(run).toMatchObject({ success: true, taskId: "t-1" });
    expect((await getTrace(database, PROJECT, traceId))!.trace.dirty).toBe(false);
    // The 10-minute job was replaced, not kept next to the new one.
    expect(await queue.depth("trace.settle")).toBe(0);
    expect(settled.filter((t) => t === traceId)).toHaveLength(1);

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

  it("still 202 (queued: false), the override stored and the trace left dirty for the sweeper; one warn line", async () => {
    const traceId = hexTraceId(0x0c2);
    await storeTrace(database, traceId);
    const res = await app.inject({ method: "POST", url: `/api/v1/traces/${traceId}/outcome`, payload: { success: true } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ queued: false, override: { success: true } });
    expect(await getOutcomeOverride(database, PROJECT, traceId)).toEqual({ success: true });
    expect((await getTrace(database, PROJECT, traceId))!.trace.dirty).toBe(true);
    expect(captured.lines.filter((l) => l.includes("re-score enqueue failed"))).toHaveLength(1);
  });
});
