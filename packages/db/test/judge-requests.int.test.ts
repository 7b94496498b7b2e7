/** traces.judge_requested_at: recorded before a judge job is enqueued, cleared and deferred by compare-and-set, swept when past and quiet. */
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clearJudgeRequest,
  deferJudgeRequest,
  ensureProject,
  getTraceSummary,
  insertSpanBatch,
  listJudgeRequests,
  listScoreRequests,
  markTraceSettled,
  requestJudge,
  type Database,
} from "../src/index.ts";
import { projectId, sleep, span, spanId, traceId } from "./fixtures.ts";

describe.each(testDatabases())("judge requests on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  async function settledTrace(p: string, n: number): Promise<string> {
    const t = traceId(n);
    await ensureProject(database, p, p);
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(n) })]);
    const summary = await getTraceSummary(database, p, t);
    expect(await markTraceSettled(database, p, t, summary!.lastReceivedAt, `h${n}`)).toBe(true);
    return t;
  }
  const requestsOf = async (p: string) => (await listJudgeRequests(database, { quietBeforeMs: 0, limit: 1_000 })).filter((r) => r.projectId === p);

  it("answers the score request and records the judge request in one statement; a clear of an older value keeps a newer one", async () => {
    const p = projectId();
    const t = await settledTrace(p, 1);
    const scoreRequest = (await getTraceSummary(database, p, t))!.scoreRequestedAt!;
    expect(scoreRequest).toBeInstanceOf(Date);
    expect(await requestJudge(database, p, "f".repeat(32))).toBeNull(); // unknown trace

    const first = await requestJudge(database, p, t, { clearScoreRequest: scoreRequest });
    const after = await getTraceSummary(database, p, t);
    expect(after!.scoreRequestedAt).toBeNull();
    expect(after!.judgeRequestedAt).toEqual(first);
    expect((await listScoreRequests(database, { quietBeforeMs: 0, limit: 1_000 })).filter((r) => r.projectId === p)).toEqual([]);
    expect(await requestsOf(p)).toEqual([{ projectId: p, traceId: t, judgeRequestedAt: first }]);

    // A request made while the judge job ran is newer: that job's clear leaves it for the sweeper.
    const second = await requestJudge(database, p, t);
    expect(second!.getTime()).toBeGreaterThan(first!.getTime());
    expect(await clearJudgeRequest(database, p, t, first!)).toBe(false);
    expect((await getTraceSummary(database, p, t))!.judgeRequestedAt).toEqual(second);
    expect(await clearJudgeRequest(database, p, t, second!)).toBe(true);
    expect(await requestsOf(p)).toEqual([]);
  });

  it("a deferral moves the request to when the job comes back: not swept before, swept after; a new request does not pull it back", async () => {
    const p = projectId();
    const t = await settledTrace(p, 2);
    const seen = await requestJudge(database, p, t);
    await deferJudgeRequest(database, p, t, seen!, 60_000);
    const moved = (await getTraceSummary(database, p, t))!.judgeRequestedAt!;
    expect(moved.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await requestsOf(p)).toEqual([]);
    const again = await requestJudge(database, p, t);
    expect(again!.getTime()).toBeGreaterThan(moved.getTime());
    // A stale deferral (another value) changes nothing; a short one makes it due again.
    await deferJudgeRequest(database, p, t, seen!, 0);
    expect((await getTraceSummary(database, p, t))!.judgeRequestedAt).toEqual(again);
    await deferJudgeRequest(database, p, t, again!, 0);
    await sleep(5); // "past" is strictly before the listing's now(), which can fall in the same millisecond
    expect((await requestsOf(p)).map((r) => r.traceId)).toEqual([t]);
  });

  it("a dirty trace's request waits for its settle, and the quiet time holds back a fresh one", async () => {
    const p = projectId();
    const t = await settledTrace(p, 3);
    await requestJudge(database, p, t);
    expect(await listJudgeRequests(database, { quietBeforeMs: 3_600_000, limit: 1_000 }).then((rs) => rs.filter((r) => r.projectId === p))).toEqual([]);
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(33) })]); // re-opened
    expect(await requestsOf(p)).toEqual([]);
  });
});
