import type { StoredSpan } from "@crux/core";
import { addContent } from "@crux/otlp";
import { testDatabases } from "@crux/testkit";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProject, getTrace, insertSpanBatch, schema, type Database } from "../src/index.ts";
import { BASE_NS, projectId, span, spanId, traceId, traceOf } from "./fixtures.ts";

async function countRows(database: Database, project: string): Promise<{ spans: number; traces: number }> {
  const [s] = await database.db.select({ n: count() }).from(schema.spans).where(eq(schema.spans.projectId, project));
  const [t] = await database.db.select({ n: count() }).from(schema.traces).where(eq(schema.traces.projectId, project));
  return { spans: s?.n ?? -1, traces: t?.n ?? -1 };
}

describe.each(testDatabases())("insertSpanBatch on $name", ({ create }) => {
  let database: Database;
  let project: string;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });
  async function newProject(): Promise<string> {
    project = projectId();
    await ensureProject(database, project, "test project");
    return project;
  }

  it("stores every column and reads the span back unchanged", async () => {
    const p = await newProject();
    const full = span({
      traceId: traceId(1),
      spanId: spanId(1),
      parentSpanId: spanId(9),
      traceState: "vendor=abc,other=1",
      flags: 0x301,
      name: "invoke_agent planner ✈️",
      kind: 3,
      startTimeUnixNano: 1_750_000_000_123_456_789n,
      endTimeUnixNano: 1_750_000_001_987_654_321n,
      attributes: {
        "gen_ai.prompt": "日本語のプロンプト — עברית — emoji 🧪",
        nested: { list: [1, 2.5, true, null, "x", { deep: ["a", { deeper: "ü" }] }] },
        big: "9223372036854775807",
        empty: {},
      },
      droppedAttributesCount: 2,
      events: [
        { timeUnixNano: 18_446_744_073_709_551_615n, name: "exception", attributes: { "exception.type": "Boom" }, droppedAttributesCount: 1 },
        { timeUnixNano: 1_750_000_000_500_000_000n, name: "gen_ai.choice", attributes: { idx: 0 }, droppedAttributesCount: 0 },
      ],
      droppedEventsCount: 3,
      links: [{ traceId: traceId(2), spanId: spanId(3), traceState: "k=v", attributes: { why: "retry" }, flags: 257 }],
      droppedLinksCount: 4,
      status: { code: 2, message: "tool failed: ñ" },
      resource: { "service.name": "gateway", "deployment.environment": "prod", "host.cpus": 8 },
      scope: { name: "openai-agents", version: "0.3.1", attributes: { "scope.attr": "s" } },
      limitsApplied: { truncatedKeys: ["gen_ai.prompt"], droppedAttributes: 5 },
      operation: "agent",
      convention: "otel_genai",
      serviceName: "gateway",
      agentName: "planner",
      agentId: "agent-1",
      model: "gpt-4.1",
      provider: "openai",
      inputTokens: 1200,
      outputTokens: 345,
      cachedTokens: 100,
      cost: 0.012345,
      toolName: "search",
      toolCallId: "call_1",
      handoffFrom: "planner",
      handoffTo: "coder",
      errorType: "ToolError",
      isError: true,
      conversationId: "conv-1",
      tags: { "crux.task.id": "task-7", "crux.seed": 3, "crux.baseline": false },
    });
    const sparse = span({ traceId: traceId(1), spanId: spanId(2), parentSpanId: spanId(1), serviceName: null });

    const result = await insertSpanBatch(database, p, [full, sparse]);
    expect(result).toEqual({ inserted: 2, duplicates: 0, traceIds: [traceId(1)] });

    const stored = await getTrace(database, p, traceId(1));
    expect(stored).not.toBeNull();
    const byId = new Map(stored!.spans.map((s) => [s.spanId, s]));
    // Stored columns come back unchanged, and only them: content and run tags are the reader's to derive.
    expect(byId.get(spanId(1))).toEqual(full);
    expect(byId.get(spanId(2))).toEqual(sparse);
    expect(byId.get(spanId(1))).not.toHaveProperty("content");
    expect(addContent(byId.get(spanId(1))!).content.text().input).toBe("日本語のプロンプト — עברית — emoji 🧪");
    expect(typeof byId.get(spanId(1))!.events[0]!.timeUnixNano).toBe("bigint");
    expect(stored!.trace.rawInputTokens).toBe(1200);
  });

  it("stores no content: the normalizer derives it, with the run tags, from the span as read", async () => {
    const p = await newProject();
    const agent = span({
      traceId: traceId(1),
      spanId: spanId(1),
      operation: "agent",
      attributes: { "input.value": "Plan the trip", "output.value": "Booked", "graph.node.parent_id": "Triage" },
      events: [
        { timeUnixNano: BASE_NS, name: "exception", attributes: { "exception.type": "Boom", "exception.message": "max turns" }, droppedAttributesCount: 0 },
      ],
      tags: { "crux.task.id": " trip ", "crux.outcome.success": "yes", "crux.seed": 3 },
    });
    await insertSpanBatch(database, p, [agent]);
    const [row] = await database.db.select().from(schema.spans).where(eq(schema.spans.projectId, p));
    expect(Object.keys(row!)).not.toContain("content");
    const read = addContent((await getTrace(database, p, traceId(1)))!.spans[0]!);
    expect(read.content.text()).toEqual({ input: "Plan the trip", output: "Booked", toolArgs: "Plan the trip" });
    expect(read.content).toMatchObject({
      handoffBackLink: "Triage",
      exceptions: [{ type: "Boom", message: "max turns" }],
    });
    expect(read.runTags).toMatchObject({ taskId: "trip", success: true, seed: "3", variant: null });
  });

  it("replaces characters Postgres cannot store instead of failing the batch", async () => {
    const p = await newProject();
    const odd = span({
      traceId: traceId(1),
      spanId: spanId(1),
      name: "nul\u0000here",
      attributes: { "key\u0000": "lone \ud800 surrogate", ok: "pair 😀" },
    });
    expect((await insertSpanBatch(database, p, [odd])).inserted).toBe(1);
    const [stored] = (await getTrace(database, p, traceId(1)))!.spans;
    expect(stored!.name).toBe("nul\uFFFDhere");
    expect(stored!.attributes).toEqual({ "key\uFFFD": "lone \uFFFD surrogate", ok: "pair 😀" });
  });

  it("stores nothing twice when the exporter retries the same batch", async () => {
    const p = await newProject();
    const batch = traceOf(1, 5);
    expect(await insertSpanBatch(database, p, batch)).toEqual({ inserted: 5, duplicates: 0, traceIds: [traceId(1)] });
    const before = (await getTrace(database, p, traceId(1)))!.trace;

    // A retry must still report its trace ids: the first attempt may have committed but failed to enqueue.
    expect(await insertSpanBatch(database, p, batch)).toEqual({ inserted: 0, duplicates: 5, traceIds: [traceId(1)] });
    const after = (await getTrace(database, p, traceId(1)))!;
    expect(after.spans).toHaveLength(5);
    expect(after.trace.spanCount).toBe(5);
    expect(after.trace.lastReceivedAt).toEqual(before.lastReceivedAt);
  });

  it("keeps the last copy of a span repeated inside one batch", async () => {
    const p = await newProject();
    const first = span({ traceId: traceId(1), spanId: spanId(1), name: "first copy" });
    const other = span({ traceId: traceId(1), spanId: spanId(2), parentSpanId: spanId(1) });
    const last = span({ traceId: traceId(1), spanId: spanId(1), name: "last copy" });
    expect(await insertSpanBatch(database, p, [first, other, last])).toEqual({ inserted: 2, duplicates: 1, traceIds: [traceId(1)] });
    const stored = (await getTrace(database, p, traceId(1)))!;
    expect(stored.spans.map((s) => s.name).sort()).toEqual(["last copy", "step"]);
    expect(stored.trace.spanCount).toBe(2);
  });

  it("accepts children before their parent and sets the root fields when the root arrives", async () => {
    const p = await newProject();
    const [root, ...children] = traceOf(1, 3, { serviceName: "worker" });
    const gatewayRoot: StoredSpan = { ...root!, name: "run pipeline", serviceName: "gateway" };

    await insertSpanBatch(database, p, children);
    const partial = (await getTrace(database, p, traceId(1)))!.trace;
    expect(partial.rootSpanId).toBeNull();
    expect(partial.rootName).toBeNull();
    expect(partial.serviceName).toBe("worker");
    expect(partial.startNs).toBe(BASE_NS + 1_000n);

    await insertSpanBatch(database, p, [gatewayRoot]);
    const complete = (await getTrace(database, p, traceId(1)))!;
    expect(complete.trace.rootSpanId).toBe(spanId(1));
    expect(complete.trace.rootName).toBe("run pipeline");
    expect(complete.trace.serviceName).toBe("gateway");
    expect(complete.trace.startNs).toBe(BASE_NS);
    expect(complete.trace.spanCount).toBe(3);
    expect(complete.spans.map((s) => s.spanId)).toEqual([spanId(1), spanId(2), spanId(3)]);
  });

  it("picks the earliest root whatever the arrival order", async () => {
    const p = await newProject();
    const early = span({ traceId: traceId(1), spanId: spanId(1), name: "early", startTimeUnixNano: BASE_NS });
    const late = span({ traceId: traceId(1), spanId: spanId(2), name: "late", startTimeUnixNano: BASE_NS + 5n });
    await insertSpanBatch(database, p, [late]);
    await insertSpanBatch(database, p, [early]);
    await insertSpanBatch(database, p, [{ ...early, traceId: traceId(2) }]);
    await insertSpanBatch(database, p, [{ ...late, traceId: traceId(2) }]);
    for (const t of [traceId(1), traceId(2)]) {
      expect((await getTrace(database, p, t))!.trace.rootName).toBe("early");
    }
  });

  it("merges the trace summary over three batches", async () => {
    const p = await newProject();
    const t = traceId(1);
    const at = (i: number) => BASE_NS + BigInt(i) * 1_000_000n;
    const batch1 = [
      span({
        traceId: t,
        spanId: spanId(2),
        parentSpanId: spanId(1),
        operation: "agent",
        agentName: "coder",
        startTimeUnixNano: at(2),
        endTimeUnixNano: at(8),
      }),
      span({
        traceId: t,
        spanId: spanId(3),
        parentSpanId: spanId(2),
        operation: "llm",
        inputTokens: 100,
        outputTokens: 10,
        startTimeUnixNano: at(3),
        endTimeUnixNano: at(4),
      }),
    ];
    const batch2 = [
      span({
        traceId: t,
        spanId: spanId(4),
        parentSpanId: spanId(2),
        operation: "tool",
        toolName: "run_tests",
        isError: true,
        errorType: "Exit1",
        startTimeUnixNano: at(5),
        endTimeUnixNano: at(6),
      }),
      span({
        traceId: t,
        spanId: spanId(5),
        parentSpanId: spanId(2),
        operation: "llm",
        inputTokens: 50,
        outputTokens: 5,
        startTimeUnixNano: at(6),
        endTimeUnixNano: at(12),
      }),
    ];
    const batch3 = [
      span({
        traceId: t,
        spanId: spanId(1),
        name: "supervisor",
        operation: "agent",
        agentName: "supervisor",
        serviceName: "gateway",
        inputTokens: 150,
        outputTokens: 15,
        startTimeUnixNano: at(1),
        endTimeUnixNano: at(10),
      }),
      span({
        traceId: t,
        spanId: spanId(6),
        parentSpanId: spanId(1),
        operation: "agent",
        agentName: "coder",
        startTimeUnixNano: at(9),
        endTimeUnixNano: at(9),
      }),
    ];
    for (const batch of [batch1, batch2, batch3]) await insertSpanBatch(database, p, batch);

    const { trace } = (await getTrace(database, p, t))!;
    expect(trace).toMatchObject({
      serviceName: "gateway",
      rootSpanId: spanId(1),
      rootName: "supervisor",
      startNs: at(1),
      endNs: at(12),
      spanCount: 6,
      errorCount: 1,
      llmCalls: 2,
      toolCalls: 1,
      rawInputTokens: 300,
      rawOutputTokens: 30,
      agents: ["coder", "supervisor"],
      hasError: true,
      dirty: true,
    });
    expect(trace.dirtySince!.getTime()).toBeLessThanOrEqual(trace.lastReceivedAt.getTime());
    expect(trace.firstReceivedAt.getTime()).toBeLessThanOrEqual(trace.lastReceivedAt.getTime());
  });

  it("writes a 2,000-span batch in one call", async () => {
    const p = await newProject();
    const batch = [1, 2, 3, 4].flatMap((t) => traceOf(t, 500, { operation: "llm", inputTokens: 2 }));
    const result = await insertSpanBatch(database, p, batch);
    expect(result.inserted).toBe(2_000);
    expect(result.traceIds.sort()).toEqual([traceId(1), traceId(2), traceId(3), traceId(4)]);
    expect(await countRows(database, p)).toEqual({ spans: 2_000, traces: 4 });
    const { trace } = (await getTrace(database, p, traceId(3)))!;
    expect(trace.spanCount).toBe(500);
    expect(trace.llmCalls).toBe(500);
    expect(trace.rawInputTokens).toBe(1_000);
  });

  it("keeps counts exact when overlapping batches for the same traces run concurrently", async () => {
    const p = await newProject();
    // Eight batches over the same two traces, each overlapping its neighbours by half.
    const all = [1, 2].flatMap((t) => traceOf(t, 80));
    const batches = Array.from({ length: 8 }, (_, b) => all.filter((_, i) => i % 8 === b || i % 8 === (b + 1) % 8));
    const results = await Promise.all(batches.map((batch) => insertSpanBatch(database, p, batch)));
    expect(results.reduce((sum, r) => sum + r.inserted, 0)).toBe(160);
    expect(await countRows(database, p)).toEqual({ spans: 160, traces: 2 });
    for (const t of [traceId(1), traceId(2)]) expect((await getTrace(database, p, t))!.trace.spanCount).toBe(80);
  });

  it("writes nothing when a later statement of the batch fails", async () => {
    const p = await newProject();
    const good = traceOf(1, 4);
    // 31 hex chars: violates spans_trace_id_len; sorts after the good ids, so it lands in the last chunk.
    const bad = span({ traceId: "f".repeat(31), spanId: spanId(1) });
    await expect(insertSpanBatch(database, p, [...good, bad], { chunkSize: 2 })).rejects.toThrow();
    expect(await countRows(database, p)).toEqual({ spans: 0, traces: 0 });
  });

  it("rolls the spans back when the trace upsert fails (unknown project)", async () => {
    const unknownProject = projectId();
    await expect(insertSpanBatch(database, unknownProject, traceOf(1, 3))).rejects.toThrow();
    expect(await countRows(database, unknownProject)).toEqual({ spans: 0, traces: 0 });
  });

  it("logs rough insert throughput for 512-span batches", async () => {
    const p = await newProject();
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 8 }, (_, t) => traceOf(b * 8 + t + 1, 64, { operation: "llm", inputTokens: 10, outputTokens: 3 })).flat(),
    );
    await insertSpanBatch(database, p, batches[0]!); // warm-up: plans, caches
    const started = performance.now();
    for (const batch of batches.slice(1)) expect((await insertSpanBatch(database, p, batch)).inserted).toBe(512);
    const perBatchMs = (performance.now() - started) / (batches.length - 1);
    console.log(`[${database.kind}] 512-span batch: ${perBatchMs.toFixed(1)} ms/batch, ~${Math.round((512 * 1000) / perBatchMs)} spans/s`);
    expect((await countRows(database, p)).spans).toBe(512 * batches.length);
  });
});
