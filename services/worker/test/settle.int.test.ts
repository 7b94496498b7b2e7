/**
 * The settle and score stages end to end on every database backend: stored
 * spans in, trace frozen and marked settled, scores persisted with the settle
 * version; late spans and outcome overrides re-score; scoring throws are
 * permanent, database errors are not.
 */
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { isPermanent } from "@crux/core";
import {
  ensureProject,
  getTrace,
  handoffContractRepository,
  insertSpanBatch,
  milestoneSetRepository,
  schema,
  setOutcomeOverride,
  type Database,
} from "@crux/db";
import { createInProcessQueue } from "@crux/queue";
import { testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { createWorker } from "../src/worker.ts";
import { directStages, normalized, recordingLog, reportTrace } from "./traces.ts";

const PROJECT = "p-settle";

async function seed(database: Database) {
  await ensureProject(database, PROJECT, "settle tests");
  await handoffContractRepository.create(database, PROJECT, {
    serviceName: null,
    from: "planner",
    to: "writer",
    jsonSchema: { type: "object", required: ["message", "path"] },
    requiredConstraints: ["under 500 words"],
  });
  await milestoneSetRepository.create(database, PROJECT, {
    serviceName: "report-crew",
    name: "report",
    milestones: [
      { id: "saved", weight: 0.5, check: 'spans[tool = "save_file" and $not(isError)]' },
      { id: "reviewed", weight: 0.5, check: '$count(steps[agent = "reviewer"]) > 0', requires: ["saved"] },
    ],
  });
}

async function scoresOf(database: Database, traceId: string) {
  const all = await database.db.select().from(schema.traceScores);
  const findings = await database.db.select().from(schema.traceFindings);
  const attributions = await database.db.select().from(schema.traceAttributions);
  return {
    rows: all.filter((r) => r.traceId === traceId),
    findings: findings.filter((r) => r.traceId === traceId),
    attributions: attributions.filter((r) => r.traceId === traceId),
  };
}

describe.each(testDatabases())("settle and score stages on $name", ({ create }) => {
  it("scores a failed trace, persists the set with the settle version and clears the dirty flag", async () => {
    const database = await create();
    try {
      await seed(database);
      const spans = reportTrace({ startMs: Date.now() - 60_000, success: false, payloadWithoutPath: true });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(database, PROJECT, spans);
      const stages = directStages(database);
      await stages.run({ projectId: PROJECT, traceId });

      const found = await getTrace(database, PROJECT, traceId);
      expect(found?.trace).toMatchObject({ dirty: false, settleVersion: 1, agents: ["planner", "reviewer", "writer"] });
      const { rows, findings, attributions } = await scoresOf(database, traceId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ version: 1, success: false, taskId: "heat-pumps", milestoneSetId: expect.any(String), milestonePartialCredit: 1 });
      // Stored with the detector that produced each finding.
      expect(findings.map((f) => [f.mode, f.agent, f.detector])).toContainEqual(["FM-1.1", "planner", "handoff-contracts"]);
      expect(findings.every((f) => f.detector !== null)).toBe(true);
      const top = attributions.find((a) => a.rank === 1);
      expect(top).toMatchObject({ method: "first_failed_handoff_contract", agent: "planner" });
    } finally {
      await database.close();
    }
  });

  it("re-scores when a late span re-opens the trace, replacing the previous set", async () => {
    const database = await create();
    try {
      await seed(database);
      const startMs = Date.now() - 60_000;
      const spans = reportTrace({ startMs, success: true });
      const traceId = spans[0]!.traceId;
      const root = spans.find((s) => s.parentSpanId === null)!;
      await insertSpanBatch(database, PROJECT, spans);
      const stages = directStages(database);
      const settle = stages.run;
      await settle({ projectId: PROJECT, traceId });
      expect((await scoresOf(database, traceId)).findings).toEqual([]);
      // A duplicate job on a settled trace changes nothing.
      await settle({ projectId: PROJECT, traceId });
      expect((await scoresOf(database, traceId)).rows.map((r) => r.version)).toEqual([1]);
      expect((await getTrace(database, PROJECT, traceId))?.trace.settleVersion).toBe(1);

      // A late tool span of the planner: the trace re-opens and is scored again as version 2.
      const late = normalized((tracer) => {
        const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: root.spanId, traceFlags: 1 });
        const s = tracer.startSpan(
          "execute_tool publish",
          { kind: SpanKind.INTERNAL, startTime: startMs + 500, attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "publish" } },
          ctx,
        );
        s.end(startMs + 510);
      });
      expect(late[0]?.traceId).toBe(traceId);
      await insertSpanBatch(database, PROJECT, late);
      await settle({ projectId: PROJECT, traceId });
      const { rows } = await scoresOf(database, traceId);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.version).toBe(2);
      expect((await getTrace(database, PROJECT, traceId))?.trace).toMatchObject({ dirty: false, settleVersion: 2, spanCount: spans.length + 1 });
    } finally {
      await database.close();
    }
  });

  it("uses the outcome override set through the API on the next settle", async () => {
    const database = await create();
    try {
      await seed(database);
      const spans = reportTrace({ startMs: Date.now() - 60_000, success: true, saveFails: true });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(database, PROJECT, spans);
      const stages = directStages(database);
      await stages.run({ projectId: PROJECT, traceId });
      expect((await scoresOf(database, traceId)).attributions).toEqual([]);
      await setOutcomeOverride(database, PROJECT, traceId, { success: false });
      // The span set did not change: the score stage alone runs again, on the same settle version.
      await stages.score({ projectId: PROJECT, traceId });
      const { rows, attributions } = await scoresOf(database, traceId);
      expect(rows[0]).toMatchObject({ success: false, version: 1 });
      expect(attributions.find((a) => a.rank === 1)).toMatchObject({ method: "first_unrecovered_tool_error", agent: "writer" });
    } finally {
      await database.close();
    }
  });

  it("re-scores an outcome change on a trace settled before the stages existed (no span-set hash stored)", async () => {
    const database = await create();
    try {
      await seed(database);
      const spans = reportTrace({ startMs: Date.now() - 60_000, success: true });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(database, PROJECT, spans);
      const stages = directStages(database);
      await stages.run({ projectId: PROJECT, traceId });
      // What migration 0009 leaves on a trace settled by the earlier worker.
      await database.db.update(schema.traces).set({ spanSetHash: null });
      await setOutcomeOverride(database, PROJECT, traceId, { success: false });
      await stages.score({ projectId: PROJECT, traceId });
      expect((await scoresOf(database, traceId)).rows[0]).toMatchObject({ success: false, version: 1 });
      expect((await getTrace(database, PROJECT, traceId))?.trace.scoreRequestedAt).toBeNull();
    } finally {
      await database.close();
    }
  });

  it("classifies a throw inside scoring as permanent and a database error as retryable", async () => {
    const database = await create();
    await seed(database);
    const spans = reportTrace({ startMs: Date.now() - 60_000, success: false });
    const traceId = spans[0]!.traceId;
    await insertSpanBatch(database, PROJECT, spans);
    const throwing = directStages(database, {
      validateSchema: () => {
        throw new TypeError("validator bug");
      },
    });
    const permanent = await throwing.run({ projectId: PROJECT, traceId }).catch((e: unknown) => e);
    expect(isPermanent(permanent)).toBe(true);
    // Settled, but the score request stays for the sweeper.
    expect((await getTrace(database, PROJECT, traceId))?.trace.scoreRequestedAt).not.toBeNull();
    expect((await scoresOf(database, traceId)).rows).toEqual([]);
    await database.close();
    const retryable = await directStages(database)
      .score({ projectId: PROJECT, traceId })
      .catch((e: unknown) => e);
    expect(retryable).toBeInstanceOf(Error);
    expect(isPermanent(retryable)).toBe(false);
  });

  it("runs through the worker and the in-process queue", async () => {
    const database = await create();
    const queue = createInProcessQueue();
    const { log } = recordingLog();
    const worker = createWorker({
      database,
      queue,
      log,
      config: { CRUX_WORKER_CONCURRENCY: 2, CRUX_SWEEP_INTERVAL_MS: 3_600_000, CRUX_SWEEP_QUIET_MS: 0 },
    });
    try {
      await seed(database);
      const spans = reportTrace({ startMs: Date.now() - 60_000, success: true });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(database, PROJECT, spans);
      worker.start();
      await queue.enqueue("trace.settle", { projectId: PROJECT, traceId }, { delayMs: 0 });
      const deadline = Date.now() + 20_000;
      while ((await scoresOf(database, traceId)).rows.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect((await scoresOf(database, traceId)).rows[0]).toMatchObject({ version: 1, milestoneFullSuccess: true });
    } finally {
      await worker.stop();
      await queue.close();
      await database.close();
    }
  });
});
