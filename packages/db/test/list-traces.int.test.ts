import { PermanentError } from "@crux/core";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProject, getTrace, insertSpanBatch, listTraces, type Database, type ListTracesQuery, type TraceSummary } from "../src/index.ts";
import { BASE_NS, projectId, span, spanId, traceId } from "./fixtures.ts";

/** 25 traces; start times repeat every 3 traces so ties on start_ns exercise the trace_id tie-break. */
const TRACE_COUNT = 25;
const startOf = (i: number) => BASE_NS + BigInt(Math.floor(i / 3)) * 1_000_000n;
const serviceOf = (i: number) => (i % 2 === 0 ? "svc-a" : "svc-b");
const agentOf = (i: number) => (i % 5 === 0 ? "planner" : "coder");
const erroredAt = (i: number) => i % 4 === 0;

interface Seeded {
  i: number;
  traceId: string;
  startNs: bigint;
}

describe.each(testDatabases())("listTraces and getTrace on $name", ({ create }) => {
  let database: Database;
  const project = projectId();
  const seeded: Seeded[] = [];

  beforeAll(async () => {
    database = await create();
    await ensureProject(database, project, "list test");
    const batch = Array.from({ length: TRACE_COUNT }, (_, i) => {
      seeded.push({ i, traceId: traceId(i + 1), startNs: startOf(i) });
      return [
        span({
          traceId: traceId(i + 1),
          spanId: spanId(1),
          name: `trace ${i}`,
          serviceName: serviceOf(i),
          operation: "agent",
          agentName: agentOf(i),
          startTimeUnixNano: startOf(i),
          endTimeUnixNano: startOf(i) + 500n,
        }),
        span({
          traceId: traceId(i + 1),
          spanId: spanId(2),
          parentSpanId: spanId(1),
          serviceName: serviceOf(i),
          isError: erroredAt(i),
          startTimeUnixNano: startOf(i) + 100n,
          endTimeUnixNano: startOf(i) + 200n,
        }),
      ];
    }).flat();
    await insertSpanBatch(database, project, batch);
    // Another project's trace must never show up.
    const other = projectId();
    await ensureProject(database, other, "other");
    await insertSpanBatch(database, other, [span({ traceId: traceId(999), spanId: spanId(1), serviceName: "svc-a" })]);
  });
  afterAll(async () => {
    await database.close();
  });

  /** Expected order: start_ns desc, trace_id desc. */
  function expected(filter: (s: Seeded) => boolean): string[] {
    return seeded
      .filter(filter)
      .sort((a, b) => (a.startNs !== b.startNs ? (a.startNs > b.startNs ? -1 : 1) : a.traceId > b.traceId ? -1 : 1))
      .map((s) => s.traceId);
  }

  async function allPages(q: Omit<ListTracesQuery, "cursor">): Promise<{ pages: TraceSummary[][] }> {
    const pages: TraceSummary[][] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 50; guard++) {
      const page = await listTraces(database, project, { ...q, ...(cursor ? { cursor } : {}) });
      pages.push(page.items);
      if (page.nextCursor === null) return { pages };
      cursor = page.nextCursor;
    }
    throw new Error("pagination did not terminate");
  }

  it("pages through 25 traces 10 at a time with no duplicates and no gaps", async () => {
    const { pages } = await allPages({ limit: 10 });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat().map((t) => t.traceId)).toEqual(expected(() => true));
  });

  it("returns no cursor when the page is the last one", async () => {
    const page = await listTraces(database, project, { limit: TRACE_COUNT });
    expect(page.items).toHaveLength(TRACE_COUNT);
    expect(page.nextCursor).toBeNull();
  });

  it("filters by service", async () => {
    const page = await listTraces(database, project, { service: "svc-b", limit: 100 });
    expect(page.items.map((t) => t.traceId)).toEqual(expected((s) => serviceOf(s.i) === "svc-b"));
    expect(page.items.every((t) => t.serviceName === "svc-b")).toBe(true);
  });

  it("filters by agent", async () => {
    const page = await listTraces(database, project, { agent: "planner", limit: 100 });
    expect(page.items.map((t) => t.traceId)).toEqual(expected((s) => agentOf(s.i) === "planner"));
    expect(page.items.length).toBe(5);
  });

  it("filters by time range [fromNs, toNs)", async () => {
    const fromNs = startOf(6);
    const toNs = startOf(15);
    const page = await listTraces(database, project, { fromNs, toNs, limit: 100 });
    expect(page.items.map((t) => t.traceId)).toEqual(expected((s) => s.startNs >= fromNs && s.startNs < toNs));
    expect(page.items.length).toBe(9);
  });

  it("filters by error", async () => {
    const withError = await listTraces(database, project, { hasError: true, limit: 100 });
    expect(withError.items.map((t) => t.traceId)).toEqual(expected((s) => erroredAt(s.i)));
    const withoutError = await listTraces(database, project, { hasError: false, limit: 100 });
    expect(withoutError.items.map((t) => t.traceId)).toEqual(expected((s) => !erroredAt(s.i)));
  });

  it("paginates a filtered listing", async () => {
    const { pages } = await allPages({ service: "svc-a", limit: 4 });
    expect(pages.flat().map((t) => t.traceId)).toEqual(expected((s) => serviceOf(s.i) === "svc-a"));
    expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 1]);
  });

  it("rejects a cursor it did not produce", async () => {
    await expect(listTraces(database, project, { cursor: "not-a-cursor", limit: 10 })).rejects.toBeInstanceOf(PermanentError);
    const forged = Buffer.from(JSON.stringify({ startNs: 1 })).toString("base64url");
    await expect(listTraces(database, project, { cursor: forged, limit: 10 })).rejects.toThrow(/cursor/);
  });

  it("returns the trace with its spans, and null for an unknown trace or another project", async () => {
    const found = await getTrace(database, project, traceId(5));
    expect(found!.trace.rootName).toBe("trace 4");
    expect(found!.spans.map((s) => [s.spanId, s.parentSpanId])).toEqual([
      [spanId(1), null],
      [spanId(2), spanId(1)],
    ]);
    expect(await getTrace(database, project, traceId(998))).toBeNull();
    expect(await getTrace(database, projectId(), traceId(5))).toBeNull();
  });
});
