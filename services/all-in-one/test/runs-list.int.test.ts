/**
 * The runs list end to end: real traces through the OTLP receiver, scored by the worker, listed by
 * GET /api/v1/traces with their stored outcome, tokens, cost, task, finding modes and attributed
 * agent, and narrowed by every server-side filter (outcome, task, baseline, mode, category, source,
 * free text) with keyset paging intact. Trajectories carry each step's text. Runs on every backend.
 */
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type TestCrux } from "./harness.ts";

const SERVICE = "runs-list";

/** A billing run: a failed one repeats its lookup three times and ends on a timeout; a baseline one succeeds at once. */
function emitRun(tracer: Tracer, startMs: number, kind: "failed" | "baseline") {
  let t = startMs;
  const open = (name: string, parent: Span | null, attrs: Record<string, string | number | boolean>) =>
    tracer.startSpan(name, { attributes: attrs, startTime: (t += 10) }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
  const root = open("invoke_agent billing", null, {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": "billing",
    "crux.task.id": "refund",
    "crux.outcome.success": kind === "baseline",
    ...(kind === "baseline" ? { "crux.baseline": true } : {}),
  });
  open("chat test-model", root, {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "test-model",
    "gen_ai.usage.input_tokens": 100,
    "gen_ai.usage.output_tokens": 20,
    "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Refund order 77\nfor Zanzibarian customer" }] }]),
  }).end((t += 30));
  let lookupId = "";
  for (let i = 0; i < (kind === "failed" ? 3 : 1); i++) {
    const lookup = open("execute_tool lookup_invoice", root, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup_invoice",
      "gen_ai.tool.call.arguments": JSON.stringify({ order: 77 }),
    });
    if (kind === "failed" && i === 2) {
      lookup.recordException({ name: "TimeoutError", message: "invoice service timed out" });
      lookup.setStatus({ code: SpanStatusCode.ERROR, message: "invoice service timed out" });
    }
    lookupId = lookup.spanContext().spanId;
    lookup.end((t += 20));
  }
  root.end((t += 5));
  return { traceId: root.spanContext().traceId, lookupId };
}

describe.each(backends())("runs list on $name", (backend) => {
  let crux: TestCrux;
  let failed: { traceId: string; lookupId: string };
  let baseline: { traceId: string; lookupId: string };
  const list = async (query: string) => {
    const r = await getJson(`${crux.apiUrl}/api/v1/traces?service=${SERVICE}&${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.items as any[];
  };
  const ids = (items: any[]) => items.map((i) => i.traceId).sort();

  beforeAll(async () => {
    crux = await startTestCrux(backend);
    const res = await fetch(`${crux.apiUrl}/api/v1/prices`, {
      method: "POST",
      body: JSON.stringify({ model: "test-model", inputPerMTok: 1, outputPerMTok: 2 }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(201);
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": SERVICE }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: crux.otlpUrl }))],
    });
    failed = emitRun(provider.getTracer("runs-list"), Date.now() - 60_000, "failed");
    baseline = emitRun(provider.getTracer("runs-list"), Date.now() - 50_000, "baseline");
    await provider.forceFlush();
    await provider.shutdown();
    await eventually(async () => {
      const items = await list("limit=10");
      return items.length === 2 && items.every((i) => i.scored) ? items : undefined;
    }, 20_000);
  });
  afterAll(async () => {
    await crux?.stop();
  });

  it("lists each run with its stored outcome, tokens, cost, task, finding modes and attributed agent", async () => {
    const items = await list("limit=10");
    const row = items.find((i) => i.traceId === failed.traceId);
    const scores = await getJson(`${crux.apiUrl}/api/v1/traces/${failed.traceId}/scores`);
    const findings = await getJson(`${crux.apiUrl}/api/v1/traces/${failed.traceId}/findings?limit=500`);
    const attribution = await getJson(`${crux.apiUrl}/api/v1/traces/${failed.traceId}/attribution`);
    expect(row).toMatchObject({
      scored: true,
      outcome: "failed",
      taskId: "refund",
      isBaseline: false,
      totalTokens: scores.body.scores.totals.totalTokens,
      costUsd: scores.body.scores.totals.costUsd,
      findingCount: findings.body.items.length,
      attributedAgent: "billing",
      attributedSpanId: attribution.body.items[0].spanId,
    });
    expect(row.totalTokens).toBe(120);
    expect(row.costUsd).toBeCloseTo((100 * 1 + 20 * 2) / 1e6, 12);
    expect(row.findingModes).toEqual([...new Set(findings.body.items.map((f: any) => f.mode as string))].sort());
    expect(row.findingModes).toContain("FM-1.3");
    expect(items.find((i) => i.traceId === baseline.traceId)).toMatchObject({ outcome: "success", isBaseline: true, findingModes: [] });
  });

  it("filters server-side by outcome, task, baseline, mode, category, source and free text", async () => {
    expect(ids(await list("outcome=failed"))).toEqual([failed.traceId]);
    expect(ids(await list("outcome=success"))).toEqual([baseline.traceId]);
    expect(await list("outcome=unknown")).toEqual([]);
    expect(ids(await list("task=refund"))).toEqual(ids([failed, baseline]));
    expect(await list("task=other")).toEqual([]);
    expect(ids(await list("baseline=true"))).toEqual([baseline.traceId]);
    expect(ids(await list("baseline=false"))).toEqual([failed.traceId]);
    expect(ids(await list("mode=FM-1.3"))).toEqual([failed.traceId]);
    expect(ids(await list("mode=FM-1.3&source=code"))).toEqual([failed.traceId]);
    expect(await list("mode=FM-1.3&source=judge")).toEqual([]);
    expect(ids(await list("category=FC1"))).toEqual([failed.traceId]);
    expect(await list("mode=FM-2.2")).toEqual([]);
    // Words of attribute values (after a JSON-escaped newline too), case-insensitive, as prefixes.
    expect(ids(await list("q=zanzibar"))).toEqual(ids([failed, baseline]));
    expect(ids(await list("q=" + encodeURIComponent("Zanzibarian CUSTOMER")))).toEqual(ids([failed, baseline]));
    expect(ids(await list("q=timed%20out"))).toEqual([]); // exception messages are events, not attributes
    expect(ids(await list("q=lookup_invoice&outcome=failed"))).toEqual([failed.traceId]);
    expect(await list("q=nowhere-to-be-found")).toEqual([]);
    expect(await list("q=" + encodeURIComponent("'&|!:*()"))).toEqual([]);
  });

  it("pages through a filtered list with the keyset cursor", async () => {
    const first = await getJson(`${crux.apiUrl}/api/v1/traces?service=${SERVICE}&task=refund&limit=1`);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0].traceId).toBe(baseline.traceId); // newest first
    const second = await getJson(`${crux.apiUrl}/api/v1/traces?service=${SERVICE}&task=refund&limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((i: any) => i.traceId)).toEqual([failed.traceId]);
    expect(second.body.nextCursor).toBeNull();
  });

  it("rejects an unknown outcome, mode or category with a message naming the field", async () => {
    for (const q of ["outcome=maybe", "mode=FM-9.9", "category=FC7", "baseline=yes", "source=human"]) {
      const r = await getJson(`${crux.apiUrl}/api/v1/traces?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.message).toContain(q.split("=")[0]);
    }
  });

  it("serves each trajectory step with its text", async () => {
    const r = await getJson(`${crux.apiUrl}/api/v1/traces/${failed.traceId}/trajectories`);
    expect(r.status).toBe(200);
    const steps = r.body.items.flatMap((a: any) => a.steps);
    const chat = steps.find((s: any) => s.kind === "llm");
    expect(chat.spanName).toBe("chat test-model");
    expect(chat.text.input).toContain("Refund order 77");
    const lookup = steps.find((s: any) => s.spanId === failed.lookupId);
    expect(lookup.text.args).toBe('{"order":77}');
    expect(lookup.text.error).toBe("invoice service timed out");
    expect(steps.filter((s: any) => s.kind === "tool" && s.spanId !== failed.lookupId).every((s: any) => s.text.error === null)).toBe(true);
  });
});
