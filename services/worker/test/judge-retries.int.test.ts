/**
 * Failed verdicts and paid verdicts through the judge stage, on real databases:
 * - a failed verdict is run again after its backoff (the judge request waits for it), and at
 *   once when POST /traces/:id/judge asks (retryFailedVerdicts); the retry's verdict replaces it;
 * - a verdict paid for when the Postgres connection drops before it is stored (a TCP proxy cuts
 *   it) is stored once the database is back, and never paid for twice.
 */
import {
  createDatabase,
  ensureProject,
  getTraceSummary,
  insertSpanBatch,
  listVerdicts,
  requestJudge,
  retryFailedVerdicts,
  schema,
  type Database,
  type PostgresDatabase,
} from "@crux/db";
import { startTcpProxy, testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import type { JudgeProducer, JudgeVerdict } from "../src/judging/judge-producer.ts";
import { createJudgeProcessor, failedVerdictRetry, failedVerdictRetryDelayMs } from "../src/processors/judge.processor.ts";
import { directStages, recordingLog, reportTrace } from "./traces.ts";

const PROJECT = "p-retries";
const MINUTE = 60_000;

async function scoredTrace(database: Database): Promise<string> {
  await ensureProject(database, PROJECT, PROJECT);
  const stages = directStages(database);
  const spans = reportTrace({ startMs: Date.now() - MINUTE, success: false });
  await insertSpanBatch(database, PROJECT, spans);
  await stages.run({ projectId: PROJECT, traceId: spans[0]!.traceId });
  await stages.close();
  return spans[0]!.traceId;
}

/** A producer answering with the scripted statuses in turn, counting its (paid) calls. */
function scriptedProducer(statuses: JudgeVerdict["status"][], onCall: () => Promise<void> = async () => {}) {
  const state = { calls: 0 };
  const producer: JudgeProducer = {
    id: "scripted",
    version: 1,
    inputs: ["spans"],
    async judge() {
      const status = statuses[Math.min(state.calls, statuses.length - 1)]!;
      state.calls++;
      await onCall();
      return { status, result: status === "failed" ? { error: "invalid reply" } : { call: state.calls } };
    },
  };
  return { producer, state };
}

describe("failedVerdictRetryDelayMs", () => {
  it("backs off from 5 minutes by 4, then leaves the verdict to a request", () => {
    expect([1, 2, 3, 4].map(failedVerdictRetryDelayMs)).toEqual([5 * MINUTE, 20 * MINUTE, 80 * MINUTE, 320 * MINUTE]);
    expect(failedVerdictRetryDelayMs(failedVerdictRetry.automaticAttempts)).toBeNull();
  });
});

describe.each(testDatabases())("failed verdicts on $name", (db) => {
  it("a failed verdict runs again after its backoff, and at once on request; the retry replaces it", async () => {
    const database = await db.create();
    try {
      const traceId = await scoredTrace(database);
      const payload = { projectId: PROJECT, traceId };
      const { producer, state } = scriptedProducer(["failed", "failed", "succeeded"]);
      const judge = createJudgeProcessor({ database, log: recordingLog().log, producers: [producer], leaseMs: MINUTE });
      // Time passing, as the database's clock sees it: every failed verdict of this test's database falls due.
      const backoffRunsOut = () => database.db.update(schema.traceVerdicts).set({ retryAt: new Date(Date.now() - 1_000) });

      await requestJudge(database, PROJECT, traceId);
      await judge(payload);
      expect(state.calls).toBe(1);
      const [first] = await listVerdicts(database, PROJECT, traceId);
      expect(first).toMatchObject({ status: "failed", attempts: 1 });
      expect(first!.retryAt!.getTime() - Date.now()).toBeGreaterThan(4 * MINUTE);
      // The judge request is kept, moved to the retry, so the sweeper runs the job again then.
      const request = (await getTraceSummary(database, PROJECT, traceId))!.judgeRequestedAt!;
      expect(request.getTime() - Date.now()).toBeGreaterThan(4 * MINUTE);

      // Before its backoff, a job pays nothing.
      await judge(payload);
      expect(state.calls).toBe(1);
      // After it, the job runs it again.
      await backoffRunsOut();
      await judge(payload);
      expect(state.calls).toBe(2);
      const [second] = await listVerdicts(database, PROJECT, traceId);
      expect(second).toMatchObject({ status: "failed", attempts: 2 });
      expect(second!.retryAt!.getTime() - Date.now()).toBeGreaterThan(19 * MINUTE);

      // A request (POST /traces/:id/judge) makes it due at once.
      expect(await retryFailedVerdicts(database, PROJECT, traceId)).toEqual([{ producerId: "scripted", model: "" }]);
      await requestJudge(database, PROJECT, traceId);
      await judge(payload);
      expect(state.calls).toBe(3);
      const verdicts = await listVerdicts(database, PROJECT, traceId);
      expect(verdicts).toHaveLength(1);
      expect(verdicts[0]).toMatchObject({ status: "succeeded", attempts: 3, retryAt: null, result: { call: 3 } });
      expect((await getTraceSummary(database, PROJECT, traceId))!.judgeRequestedAt).toBeNull();

      // A succeeded verdict is never run again, asked or not.
      expect(await retryFailedVerdicts(database, PROJECT, traceId)).toEqual([]);
      await backoffRunsOut();
      await requestJudge(database, PROJECT, traceId);
      await judge(payload);
      expect(state.calls).toBe(3);
    } finally {
      await database.close();
    }
  }, 60_000);
});

const postgres = testDatabases().find((f) => f.name === "postgres");

describe.skipIf(postgres === undefined)("a verdict paid for when the Postgres connection drops", () => {
  it("is stored once the database is back, and paid for once", async () => {
    const direct = await postgres!.create();
    const target = new URL((direct as PostgresDatabase).pool.options.connectionString!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const database = await createDatabase({ url: proxy.urlFor(target.toString()) });
    try {
      const traceId = await scoredTrace(database);
      const payload = { projectId: PROJECT, traceId };
      // The provider answers, then the connection drops before the verdict is stored; it comes back 1 s later.
      const { producer, state } = scriptedProducer(["succeeded"], async () => {
        await proxy.down();
        setTimeout(() => void proxy.up(), 1_000);
      });
      const judge = createJudgeProcessor({ database, log: recordingLog().log, producers: [producer], leaseMs: MINUTE });
      await judge(payload);
      expect(state.calls).toBe(1);
      const verdicts = await listVerdicts(direct, PROJECT, traceId);
      expect(verdicts).toEqual([expect.objectContaining({ producerId: "scripted", status: "succeeded", attempts: 1 })]);
      // The lease ended with the verdict; another run pays nothing.
      await judge(payload);
      expect(state.calls).toBe(1);

      // Away longer than the job waits: the job fails, and its retry stores the verdict it kept, unpaid.
      const other = await scoredTrace(database);
      const longer = scriptedProducer(["succeeded"], async () => {
        await proxy.down();
      });
      const impatient = createJudgeProcessor({ database, log: recordingLog().log, producers: [longer.producer], leaseMs: MINUTE, storeRetryMs: 300 });
      await expect(impatient({ projectId: PROJECT, traceId: other })).rejects.toThrow();
      await proxy.up();
      await impatient({ projectId: PROJECT, traceId: other });
      expect(longer.state.calls).toBe(1);
      expect(await listVerdicts(direct, PROJECT, other)).toEqual([expect.objectContaining({ producerId: "scripted", status: "succeeded", attempts: 1 })]);
    } finally {
      await database.close();
      await proxy.close();
      await direct.close();
    }
  }, 60_000);
});
