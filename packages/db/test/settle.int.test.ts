import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clearScoreRequest,
  ensureProject,
  getTrace,
  insertSpanBatch,
  listDirtyTraces,
  listScoreRequests,
  listSpanIds,
  markTraceSettled,
  requestRescore,
  setOutcomeOverride,
  updateTraceAgents,
  type Database,
} from "../src/index.ts";
import { BASE_NS, projectId, sleep, span, spanId, traceId } from "./fixtures.ts";

describe.each(testDatabases())("dirty and settled traces on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  async function dirtyOf(project: string) {
    // listDirtyTraces spans all projects; tests share the database, so keep only this test's project.
    return (await listDirtyTraces(database, { quietBeforeMs: 0, limit: 1_000 })).filter((d) => d.projectId === project);
  }

  it("clears dirty only if no span arrived after the settler looked", async () => {
    const p = projectId();
    await ensureProject(database, p, "settle");
    const t = traceId(1);
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(1) })]);
    await sleep(20);

    expect(await listDirtyTraces(database, { quietBeforeMs: 60_000, limit: 1_000 })).not.toContainEqual(expect.objectContaining({ projectId: p }));
    const [seen] = await dirtyOf(p);
    expect(seen).toMatchObject({ projectId: p, traceId: t });

    // A late span lands between the settler's read and its write.
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(2), parentSpanId: spanId(1) })]);
    expect(await markTraceSettled(database, p, t, seen!.lastReceivedAt, "h1")).toBe(false);
    expect((await getTrace(database, p, t))!.trace.dirty).toBe(true);

    await sleep(20);
    const [again] = await dirtyOf(p);
    expect(again!.lastReceivedAt.getTime()).toBeGreaterThan(seen!.lastReceivedAt.getTime());
    expect(await markTraceSettled(database, p, t, again!.lastReceivedAt, "h2")).toBe(true);
    const settled = (await getTrace(database, p, t))!.trace;
    expect(settled).toMatchObject({ dirty: false, dirtySince: null, settleVersion: 1, spanCount: 2, spanSetHash: "h2" });
    expect(settled.scoreRequestedAt).toBeInstanceOf(Date);
    expect(settled.settledAt).toBeInstanceOf(Date);
    expect(await dirtyOf(p)).toEqual([]);
    // Settling twice is a no-op.
    expect(await markTraceSettled(database, p, t, again!.lastReceivedAt, "h3")).toBe(false);
    expect((await getTrace(database, p, t))!.trace.spanSetHash).toBe("h2");

    // A retried batch stores nothing, so it must not re-dirty the trace.
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(1) })]);
    expect((await getTrace(database, p, t))!.trace.dirty).toBe(false);

    // A genuinely new span does.
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(3), parentSpanId: spanId(1) })]);
    const redirtied = (await getTrace(database, p, t))!.trace;
    expect(redirtied).toMatchObject({ dirty: true, settleVersion: 1 });
    expect(redirtied.dirtySince).toBeInstanceOf(Date);
  });

  it("moves last_received_at forward on every write, even within one millisecond", async () => {
    const p = projectId();
    await ensureProject(database, p, "settle");
    const t = traceId(1);
    const seen: number[] = [];
    for (let i = 1; i <= 5; i++) {
      await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(i) })]);
      seen.push((await getTrace(database, p, t))!.trace.lastReceivedAt.getTime());
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
  });

  it("lists dirty traces oldest first and honours the limit", async () => {
    const p = projectId();
    await ensureProject(database, p, "settle");
    for (const n of [1, 2, 3]) {
      await insertSpanBatch(database, p, [span({ traceId: traceId(n), spanId: spanId(1) })]);
      await sleep(5);
    }
    await sleep(20);
    const listed = await dirtyOf(p);
    expect(listed.map((d) => d.traceId)).toEqual([traceId(1), traceId(2), traceId(3)]);
    expect(await listDirtyTraces(database, { quietBeforeMs: 0, limit: 1 })).toHaveLength(1);
  });

  it("replaces the agent list, and later agent spans merge into it", async () => {
    const p = projectId();
    await ensureProject(database, p, "settle");
    const t = traceId(1);
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(1), operation: "agent", agentName: "raw-name" })]);
    await updateTraceAgents(database, p, t, ["planner", "coder"]);
    expect((await getTrace(database, p, t))!.trace.agents).toEqual(["planner", "coder"]);

    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(2), parentSpanId: spanId(1), operation: "agent", agentName: "reviewer" })]);
    expect((await getTrace(database, p, t))!.trace.agents).toEqual(["coder", "planner", "reviewer"]);
  });

  it("keeps a score request made while the score stage ran, and lists requests of settled traces only", async () => {
    const p = projectId();
    await ensureProject(database, p, "score requests");
    const t = traceId(7);
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(2) }), span({ traceId: t, spanId: spanId(1), parentSpanId: spanId(2) })]);
    expect(await listSpanIds(database, p, t)).toEqual([spanId(1), spanId(2)]);
    const requestsOf = async () => (await listScoreRequests(database, { quietBeforeMs: 0, limit: 1_000 })).filter((r) => r.projectId === p);
    // Dirty: the settle requests the score, not the sweeper's score pass.
    await setOutcomeOverride(database, p, t, { success: true });
    expect(await requestsOf()).toEqual([]);

    const seen = (await getTrace(database, p, t))!.trace;
    expect(await markTraceSettled(database, p, t, seen.lastReceivedAt, "h")).toBe(true);
    await sleep(5);
    const [first] = await requestsOf();
    expect(first).toMatchObject({ traceId: t });
    // An outcome set while the score stage runs: its clear (with the request it read) fails, the new request stays.
    await setOutcomeOverride(database, p, t, { success: false });
    expect(await clearScoreRequest(database, p, t, first!.scoreRequestedAt)).toBe(false);
    const [second] = await requestsOf();
    expect(second!.scoreRequestedAt.getTime()).toBeGreaterThan(first!.scoreRequestedAt.getTime());
    expect(await clearScoreRequest(database, p, t, second!.scoreRequestedAt)).toBe(true);
    expect(await requestsOf()).toEqual([]);
    // setOutcomeOverride no longer re-opens the trace: the span set did not change.
    expect((await getTrace(database, p, t))!.trace).toMatchObject({ dirty: false, settleVersion: 1 });
  });
  it("requests a re-score of the project's settled traces in a start-time range, and of no other", async () => {
    const p = projectId();
    const other = projectId();
    await ensureProject(database, p, "rescore");
    await ensureProject(database, other, "rescore-other");
    const startMs = Number(BASE_NS / 1_000_000n);
    // traces 1 and 2 settled (2 starts an hour later), 3 still dirty; the other project's trace settled
    for (const [project, n, offsetMs] of [
      [p, 1, 0],
      [p, 2, 3_600_000],
      [p, 3, 0],
      [other, 4, 0],
    ] as const) {
      const start = BASE_NS + BigInt(offsetMs) * 1_000_000n;
      await insertSpanBatch(database, project, [span({ traceId: traceId(n), spanId: spanId(n), startTimeUnixNano: start, endTimeUnixNano: start + 1_000n })]);
    }
    await sleep(5);
    for (const [project, n] of [
      [p, 1],
      [p, 2],
      [other, 4],
    ] as const) {
      const [seen] = (await listDirtyTraces(database, { quietBeforeMs: 0, limit: 1_000 })).filter((d) => d.projectId === project && d.traceId === traceId(n));
      expect(await markTraceSettled(database, project, traceId(n), seen!.lastReceivedAt, `h${n}`)).toBe(true);
      const requested = (await getTrace(database, project, traceId(n)))!.trace.scoreRequestedAt!;
      expect(await clearScoreRequest(database, project, traceId(n), requested)).toBe(true);
    }
    const requestedOf = async (project: string, n: number) => (await getTrace(database, project, traceId(n)))!.trace.scoreRequestedAt;

    expect(await requestRescore(database, p, { from: new Date(startMs + 1_800_000) })).toBe(1);
    expect(await requestedOf(p, 1)).toBeNull();
    expect(await requestedOf(p, 2)).toBeInstanceOf(Date);

    expect(await requestRescore(database, p)).toBe(2);
    expect(await requestedOf(p, 1)).toBeInstanceOf(Date);
    expect(await requestedOf(p, 3)).toBeNull(); // not settled yet: its settle requests the score anyway
    expect(await requestedOf(other, 4)).toBeNull();
    expect(await requestRescore(database, p, { to: new Date(startMs) })).toBe(0);
  });
});
