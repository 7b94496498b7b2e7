/**
 * The worker's per-trace reads run as fixed statements (queryRows) instead of
 * drizzle selects: they must return what the drizzle selects returned, page
 * the same way, and run inside a transaction when given one.
 */
import { testDatabases } from "@crux/testkit";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inReadSnapshot } from "../src/client.ts";
import {
  ensureProject,
  getTraceSummary,
  insertSpanBatch,
  listTraceSpans,
  markTraceSettled,
  readScoreJobState,
  readSettleState,
  schema,
  setOutcomeOverride,
  type Database,
} from "../src/index.ts";
import { BASE_NS, projectId, span, spanId, traceId, traceOf } from "./fixtures.ts";

describe.each(testDatabases())("fixed per-trace reads on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  async function newProject(): Promise<string> {
    const p = projectId();
    await ensureProject(database, p, "fixed reads");
    return p;
  }

  it("readScoreJobState returns the trace row a drizzle select returns, every column decoded alike", async () => {
    const p = await newProject();
    const t = traceId(1);
    await insertSpanBatch(database, p, traceOf(1, 3, { agentName: "planner", operation: "agent", inputTokens: 7 }));
    const settle = (await readSettleState(database, p, t))!;
    expect(await markTraceSettled(database, p, t, settle.lastReceivedAt, "frozen")).toBe(true);
    await setOutcomeOverride(database, p, t, { success: false, taskId: "task-1" });

    const [drizzleRow] = await database.db
      .select()
      .from(schema.traces)
      .where(and(eq(schema.traces.projectId, p), eq(schema.traces.traceId, t)));
    const state = (await readScoreJobState(database, p, t))!;
    expect(state.trace).toStrictEqual(drizzleRow);
    // Settled: the timestamps and bigints that could decode differently are all set.
    expect(typeof state.trace.startNs).toBe("bigint");
    expect(state.trace.rootStartNs).toBe(BASE_NS);
    expect(state.trace.scoreRequestedAt).toBeInstanceOf(Date);
    expect(state.trace.settledAt).toBeInstanceOf(Date);
    expect(state.trace.spanSetHash).toBe("frozen");
    expect(state.override).toMatchObject({ success: false, taskId: "task-1" });
    expect(state.stored).toBeNull();
    expect(state.judgeSettingsStamp).toBe("none");
    expect(await readScoreJobState(database, p, traceId(2))).toBeNull();
  });

  it("readSettleState and markTraceSettled compare-and-set on the last_received_at they read", async () => {
    const p = await newProject();
    const t = traceId(1);
    await insertSpanBatch(database, p, [span({ traceId: t, spanId: spanId(2) }), span({ traceId: t, spanId: spanId(1) })]);
    const seen = (await readSettleState(database, p, t))!;
    expect(seen).toMatchObject({ dirty: true, settleVersion: 0, spanIds: [spanId(1), spanId(2)] });
    expect(seen.lastReceivedAt).toStrictEqual((await getTraceSummary(database, p, t))!.lastReceivedAt);
    expect(await markTraceSettled(database, p, t, new Date(seen.lastReceivedAt.getTime() - 1), "h")).toBe(false);
    expect(await markTraceSettled(database, p, t, seen.lastReceivedAt, "h")).toBe(true);
    expect(await readSettleState(database, p, t)).toMatchObject({ dirty: false, settleVersion: 1 });
    expect(await readSettleState(database, p, traceId(2))).toBeNull();
  });

  it("listTraceSpans returns every span by (start, span id), ties included, whatever the page size", async () => {
    const p = await newProject();
    // Start order differs from span id order, and three spans start at the same instant (ordered by span id).
    const startsUs = [2, 0, 0, 1, 0];
    const spans = traceOf(1, 5).map((s, i) => ({ ...s, startTimeUnixNano: BASE_NS + BigInt(startsUs[i]!) * 1_000n }));
    await insertSpanBatch(database, p, spans);
    const whole = await listTraceSpans(database, p, traceId(1));
    expect(whole.map((s) => s.spanId)).toEqual([spanId(2), spanId(3), spanId(5), spanId(4), spanId(1)]);
    for (const pageSize of [1, 2, 5]) {
      const paged = await listTraceSpans(database, p, traceId(1), { pageSize });
      expect(paged.map((s) => [s.spanId, s.startTimeUnixNano])).toEqual(whole.map((s) => [s.spanId, s.startTimeUnixNano]));
    }
    expect(await listTraceSpans(database, p, traceId(2))).toEqual([]);
  });

  it("reads inside a read snapshot run in it: a span stored after the snapshot began is not seen", async () => {
    const p = await newProject();
    await insertSpanBatch(database, p, traceOf(1, 2));
    const seen = await inReadSnapshot(database, async (snapshot) => {
      const first = await listTraceSpans(snapshot, p, traceId(1));
      // Another connection on Postgres; on PGlite this waits for the snapshot, so it is not awaited here.
      const late = insertSpanBatch(database, p, [span({ traceId: traceId(1), spanId: spanId(9), parentSpanId: spanId(1) })]);
      if (database.kind === "postgres") await late;
      const again = await listTraceSpans(snapshot, p, traceId(1));
      const state = await readSettleState(snapshot, p, traceId(1));
      return { first: first.length, again: again.length, spanIds: state!.spanIds.length, late };
    });
    await seen.late;
    expect(seen).toMatchObject({ first: 2, again: 2, spanIds: 2 });
    expect(await listTraceSpans(database, p, traceId(1))).toHaveLength(3);
  });
});
