/**
 * GET /traces/:traceId on a 10,000-deep span chain: 200 with every span
 * present exactly once, nesting bounded at 64 levels (deeper spans continue as
 * further `roots`, flagged by `childrenInRoots` on the span above), and the
 * event loop never blocked for seconds (other requests keep being answered).
 * Before: the serializer recursed through the tree and ran out of stack after
 * seconds of quadratic ancestor walks (500, every other request stalled).
 */
import { TraceDetail } from "@crux/contracts";
import { normalizedSpan, spanIdOf } from "@crux/core/testing";
import { insertSpanBatch, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, buildTestApp } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

const DEPTH = 10_000;
const traceId = hexTraceId(0xdeef);
const base = 1_760_000_000_000_000_000n;

function chain() {
  return Array.from({ length: DEPTH }, (_, i) =>
    normalizedSpan({
      traceId,
      spanId: spanIdOf(i + 1),
      parentSpanId: i === 0 ? null : spanIdOf(i),
      name: i === 0 ? "lead" : i === DEPTH - 1 ? "chat" : `step ${i}`,
      operation: i === 0 ? "agent" : i === DEPTH - 1 ? "llm" : "other",
      agentName: i === 0 ? "lead" : null,
      model: i === DEPTH - 1 ? "gpt-4o" : null,
      inputTokens: i === DEPTH - 1 ? 100 : null,
      outputTokens: i === DEPTH - 1 ? 10 : null,
      startTimeUnixNano: base + BigInt(i) * 1_000n,
      endTimeUnixNano: base + 100_000_000n - BigInt(i),
    }),
  );
}

interface Node {
  spanId: string;
  parentSpanId: string | null;
  depth: number;
  agent: string | null;
  countedTokens: { input: number; output: number; cached: number };
  childrenInRoots: boolean;
  children: Node[];
}

describe.each(testDatabases())("a 10,000-deep span chain on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    await insertSpanBatch(database, PROJECT, chain());
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("answers 200 with every span once, nested at most 64 levels, without blocking the event loop for seconds", async () => {
    // A ticker measures the longest gap between event-loop turns while the request runs.
    let last = performance.now();
    let longestGapMs = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const [res, probe] = await Promise.all([
      app.inject({ method: "GET", url: `/api/v1/traces/${traceId}` }),
      // Issued alongside: must not wait for the deep trace's whole build and serialization.
      new Promise((r) => setTimeout(r, 20)).then(() => app.inject({ method: "GET", url: "/livez" })),
    ]);
    const elapsedMs = performance.now() - started;
    clearInterval(ticker);
    expect(res.statusCode).toBe(200);
    expect(probe.statusCode).toBe(200);

    const body = res.json() as { roots: Node[]; scoring: { status: string }; orphanSpanIds: string[] };
    const seen = new Map<string, { node: Node; level: number }>();
    let maxLevel = 0;
    const stack: { node: Node; level: number }[] = body.roots.map((node) => ({ node, level: 0 }));
    while (stack.length > 0) {
      const { node, level } = stack.pop()!;
      expect(seen.has(node.spanId)).toBe(false);
      seen.set(node.spanId, { node, level });
      maxLevel = Math.max(maxLevel, level);
      for (const c of node.children) {
        expect(c.parentSpanId).toBe(node.spanId);
        stack.push({ node: c, level: level + 1 });
      }
    }
    expect(seen.size).toBe(DEPTH);
    expect(maxLevel).toBe(63);
    // One true root, then one continuation per 64 levels; each hangs below a span flagged childrenInRoots.
    expect(body.roots[0]!.spanId).toBe(spanIdOf(1));
    expect(body.roots).toHaveLength(Math.ceil(DEPTH / 64));
    for (const root of body.roots.slice(1)) {
      const parent = seen.get(root.parentSpanId!)!;
      expect(parent.node.childrenInRoots).toBe(true);
      expect(parent.node.children).toEqual([]);
      expect(parent.level).toBe(63);
    }
    expect([...seen.values()].filter((s) => s.node.childrenInRoots)).toHaveLength(body.roots.length - 1);
    expect(seen.get(spanIdOf(DEPTH))!.node.depth).toBe(DEPTH - 1);
    expect(body.orphanSpanIds).toEqual([]);
    // The model call 9,999 levels down is credited to lead, its tokens counted once; not scored yet.
    expect(seen.get(spanIdOf(DEPTH))!.node).toMatchObject({ agent: "lead", countedTokens: { input: 100, output: 10, cached: 0 } });
    expect(body.scoring).toEqual({ status: "pending" });
    // Served as built, not re-parsed: the body holds exactly the contract's fields.
    expect(TraceDetail.parse(body)).toEqual(body);

    expect(longestGapMs, `longest event-loop gap (request took ${Math.round(elapsedMs)} ms)`).toBeLessThan(1_000);
  }, 60_000);
});
