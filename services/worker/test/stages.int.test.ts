/**
 * The stage pipeline through the worker on real queues (in-process and BullMQ
 * on Redis) and both databases: trace.settle → trace.score → trace.judge.
 * Two judge producers count their runs: one depends on the spans only, one on
 * the spans and the outcome. What is checked is what the stages promise
 * (docs/architecture.md §6): a verdict survives a re-settle; the score stage
 * does not run again on unchanged inputs and does on a changed outcome; a
 * judge runs again (a new row, the old kept) only when an input it declared
 * changed; a score job lost after its settle is re-enqueued by the sweeper.
 */
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { scoreInputHash } from "@crux/core";
import {
  ensureProject,
  findBaselineRun,
  getTrace,
  insertSpanBatch,
  listVerdicts,
  loadScoringConfig,
  priceRepository,
  schema,
  setOutcomeOverride,
  type Database,
} from "@crux/db";
import { createMetricsRegistry } from "@crux/runtime";
import type { QueueName } from "@crux/queue";
import { testDatabases, testQueues } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import type { JudgeProducer } from "../src/judging/judge-producer.ts";
import { createWorker } from "../src/worker.ts";
import { directStages, normalized, recordingLog, reportTrace, stopTestWorker, until, jobsCounted } from "./traces.ts";

const PROJECT = "p-stages";

const queues = testQueues({ queuePrefix: "test-stages" });
const cases = testDatabases().flatMap((db) => queues.map((q) => ({ name: `${db.name} + ${q.name}`, db, q })));

/** A judge that records each run and answers with its run number. */
function countingJudge(id: string, inputs: JudgeProducer["inputs"]) {
  const runs: string[] = [];
  const producer: JudgeProducer = {
    id,
    version: 1,
    inputs,
    judge: async ({ traceId, spans, runTags }) => {
      runs.push(traceId);
      return { status: "succeeded", result: { run: runs.length, spans: spans.length, success: runTags.success } };
    },
  };
  return { producer, runs };
}

async function setup(db: (typeof cases)[number]["db"], q: (typeof cases)[number]["q"]) {
  const database = await db.create();
  const { queue, purge } = q.create();
  const recorded = recordingLog();
  const registry = createMetricsRegistry({ processMetrics: false });
  const spansOnly = countingJudge("spans-only", ["spans"]);
  const withOutcome = countingJudge("with-outcome", ["spans", "outcome"]);
  const worker = createWorker({
    database,
    queue,
    log: recorded.log,
    registry,
    judges: [spansOnly.producer, withOutcome.producer],
    config: { CRUX_WORKER_CONCURRENCY: 2, CRUX_SWEEP_INTERVAL_MS: 3_600_000, CRUX_SWEEP_QUIET_MS: 0 },
  });
  await ensureProject(database, PROJECT, PROJECT);
  worker.start();
  const completed = (name: QueueName) => jobsCounted(registry, name, "completed");
  return {
    database,
    queue,
    recorded,
    spansOnly,
    withOutcome,
    completed,
    sweeper: worker.sweeper,
    /** A fresh trace, settled and scored once (its first score job counted), with its stored score row. */
    async scoredTrace() {
      const spans = reportTrace({ startMs: Date.now() - 60_000, success: true });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(database, PROJECT, spans);
      await this.runJob("trace.settle", traceId);
      await until("scored", async () => (await scoreRow(database, traceId)) !== undefined);
      await until("the first score job counted", async () => (await completed("trace.score")) === 1);
      return { traceId, scored: (await scoreRow(database, traceId))! };
    },
    /** Runs one more job of `name` for the trace and waits until it completed. */
    async runJob(name: "trace.settle" | "trace.score", traceId: string) {
      const before = await completed(name);
      await queue.enqueue(name, { projectId: PROJECT, traceId }, { delayMs: 0 });
      await until(`${name} completed`, async () => (await completed(name)) > before);
    },
    close: () => stopTestWorker({ worker, queue, purge, database }),
  };
}

async function scoreRow(database: Database, traceId: string) {
  return (await database.db.select().from(schema.traceScores)).find((r) => r.traceId === traceId);
}

/** A late tool span under the trace's root: the span set changes. */
function lateSpan(traceId: string, rootSpanId: string, startMs: number) {
  return normalized((tracer) => {
    const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: rootSpanId, traceFlags: 1 });
    tracer
      .startSpan(
        "execute_tool publish",
        { kind: SpanKind.INTERNAL, startTime: startMs + 500, attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "publish" } },
        ctx,
      )
      .end(startMs + 510);
  });
}

describe.each(cases)("stage pipeline on $name", ({ db, q }) => {
  it("keeps verdicts through a re-settle; judges run again only when an input they declared changed", async () => {
    const s = await setup(db, q);
    try {
      const startMs = Date.now() - 60_000;
      const spans = reportTrace({ startMs, success: true });
      const traceId = spans[0]!.traceId;
      const root = spans.find((x) => x.parentSpanId === null)!;
      await insertSpanBatch(s.database, PROJECT, spans);
      await s.runJob("trace.settle", traceId);
      await until("both verdicts", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 2);
      const first = await listVerdicts(s.database, PROJECT, traceId);
      expect((await scoreRow(s.database, traceId))?.version).toBe(1);
      expect(s.spansOnly.runs).toHaveLength(1);
      expect(s.withOutcome.runs).toHaveLength(1);

      // An outcome change (as POST /outcome does): re-scored; only the judge that reads the outcome runs again.
      await setOutcomeOverride(s.database, PROJECT, traceId, { success: false });
      await s.runJob("trace.score", traceId);
      await until("the outcome judge's new verdict", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 3);
      expect((await scoreRow(s.database, traceId))?.success).toBe(false);
      expect(s.spansOnly.runs).toHaveLength(1);
      expect(s.withOutcome.runs).toHaveLength(2);

      // A late span re-opens the trace: settle → score replaced (version 2) → both judges run again, as new rows.
      await insertSpanBatch(s.database, PROJECT, lateSpan(traceId, root.spanId, startMs));
      await s.runJob("trace.settle", traceId);
      await until("verdicts on the new span set", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 5);
      const row = await scoreRow(s.database, traceId);
      expect(row).toMatchObject({ version: 2, success: false });
      expect(s.spansOnly.runs).toHaveLength(2);
      expect(s.withOutcome.runs).toHaveLength(3);
      const after = await listVerdicts(s.database, PROJECT, traceId);
      // Every earlier verdict is still there, unchanged.
      for (const v of first) expect(after).toContainEqual(v);
      const spansOnlyRows = after.filter((v) => v.producerId === "spans-only");
      expect(spansOnlyRows.map((v) => v.result)).toEqual([
        { run: 1, spans: spans.length, success: true },
        { run: 2, spans: spans.length + 1, success: false },
      ]);
      expect(new Set(spansOnlyRows.map((v) => v.inputHash)).size).toBe(2);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("does not score again when the input hash is unchanged (duplicate job, re-settle without a span change); does when the outcome changes", async () => {
    const s = await setup(db, q);
    try {
      const { traceId, scored } = await s.scoredTrace();
      await until("judged", async () => (await listVerdicts(s.database, PROJECT, traceId)).length === 2);
      expect(scored.inputHash).toMatch(/^[0-9a-f]{64}$/);
      // The stored hash is scoreInputHash of what the job read (the worker hashes a kept configuration).
      const frozen = (await getTrace(s.database, PROJECT, traceId))!.trace;
      const baselineRun = scored.taskId === null ? null : await findBaselineRun(s.database, PROJECT, scored.taskId);
      const config = await loadScoringConfig(s.database, PROJECT, frozen.serviceName, scored.taskId);
      expect(scored.inputHash).toBe(scoreInputHash({ spanSetHash: frozen.spanSetHash!, outcomeOverride: null, config, baselineRun }));
      expect((await getTrace(s.database, PROJECT, traceId))!.trace.scoreRequestedAt).toBeNull();

      // A duplicate score job: skipped, said at debug level, the stored set untouched.
      await s.runJob("trace.score", traceId);
      expect(s.recorded.debugs).toContain("score: inputs unchanged, the stored scores are kept");
      expect(await scoreRow(s.database, traceId)).toEqual(scored);

      // A re-settle with no span change (the trace re-opened without a new span, as the previous
      // outcome route did): the settle version moves on, the score stage finds the same inputs.
      await s.database.db.update(schema.traces).set({ dirty: true }); // this test's database holds this one trace
      const skipsBefore = s.recorded.debugs.filter((m) => m === "score: inputs unchanged, the stored scores are kept").length;
      const scoresBefore = await s.completed("trace.score");
      await s.runJob("trace.settle", traceId);
      await until("the score job after the re-settle", async () => (await getTrace(s.database, PROJECT, traceId))!.trace.scoreRequestedAt === null);
      // Counted only after its processor returned: waiting for it keeps the next job's count its own.
      await until("the score job after the re-settle counted", async () => (await s.completed("trace.score")) > scoresBefore);
      expect((await getTrace(s.database, PROJECT, traceId))!.trace).toMatchObject({ dirty: false, settleVersion: 2 });
      expect(s.recorded.debugs.filter((m) => m === "score: inputs unchanged, the stored scores are kept").length).toBe(skipsBefore + 1);
      expect(await scoreRow(s.database, traceId)).toEqual(scored);
      expect(s.spansOnly.runs).toHaveLength(1);
      expect(s.withOutcome.runs).toHaveLength(1);

      // The outcome changes: the score stage runs again.
      await setOutcomeOverride(s.database, PROJECT, traceId, { success: false });
      await s.runJob("trace.score", traceId);
      const rescored = (await scoreRow(s.database, traceId))!;
      expect(rescored).toMatchObject({ success: false, version: 2 });
      expect(rescored.inputHash).not.toBe(scored.inputHash);
      expect(rescored.scoredAt.getTime()).toBeGreaterThan(scored.scoredAt.getTime());
    } finally {
      await s.close();
    }
  }, 60_000);

  it("kept configuration: a price written after a trace was scored reaches its next score job", async () => {
    const s = await setup(db, q);
    try {
      const { traceId, scored } = await s.scoredTrace();
      await s.runJob("trace.score", traceId); // the configuration is kept: the same inputs, skipped
      expect(await scoreRow(s.database, traceId)).toEqual(scored);

      await priceRepository.create(s.database, PROJECT, { model: "gpt-4o-mini", inputPerMTok: 1_000, outputPerMTok: 1_000, cachedInputPerMTok: null });
      await s.runJob("trace.score", traceId);
      const rescored = (await scoreRow(s.database, traceId))!;
      expect(rescored.inputHash).not.toBe(scored.inputHash);
      expect(rescored.costUsd).toBeCloseTo(((scored.inputTokens + scored.outputTokens) * 1_000) / 1e6, 6);
      expect(rescored.costUsd).not.toBe(scored.costUsd);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("scores a settled trace whose score job was lost: the sweeper enqueues its stored score request", async () => {
    const s = await setup(db, q);
    try {
      const spans = reportTrace({ startMs: Date.now() - 60_000, success: true });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(s.database, PROJECT, spans);
      // Settled through a queue that is closed before its score job runs: the job is lost.
      const lost = directStages(s.database);
      await lost.settle({ projectId: PROJECT, traceId });
      await lost.close();
      expect((await getTrace(s.database, PROJECT, traceId))!.trace).toMatchObject({ dirty: false, settleVersion: 1, scoreRequestedAt: expect.any(Date) });
      expect(await scoreRow(s.database, traceId)).toBeUndefined();

      expect(await s.sweeper.sweepOnce()).toBe(1);
      await until("scored", async () => (await scoreRow(s.database, traceId)) !== undefined);
      await until("the request cleared", async () => (await getTrace(s.database, PROJECT, traceId))!.trace.scoreRequestedAt === null);
      // Scored, the trace was handed to the judge producers: nothing is owed once their job has answered its judge request.
      await until("the judge request answered", async () => (await getTrace(s.database, PROJECT, traceId))!.trace.judgeRequestedAt === null);
      expect(await s.sweeper.sweepOnce()).toBe(0);
    } finally {
      await s.close();
    }
  }, 60_000);
});
