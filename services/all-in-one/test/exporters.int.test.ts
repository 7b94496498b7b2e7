/**
 * Real OpenTelemetry exporters (OTLP/HTTP protobuf, OTLP/HTTP JSON, OTLP/gRPC)
 * send a multi-agent trace to the running service; the stored trace is read
 * back through the API and checked field by field.
 */
import { OTLPTraceExporter as GrpcExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { MULTI_AGENT_EXPECTED, emitMultiAgentTrace } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type TestCrux } from "./harness.ts";

type Flavor = { name: string; exporter: (crux: TestCrux) => SpanExporter; batch: boolean };
const flavors: Flavor[] = [
  { name: "otlp-proto (batched)", exporter: (c) => new ProtoExporter({ url: c.otlpUrl }), batch: true },
  { name: "otlp-http json (one request per span)", exporter: (c) => new JsonExporter({ url: c.otlpUrl }), batch: false },
  { name: "otlp-grpc (batched)", exporter: (c) => new GrpcExporter({ url: c.grpcAddress }), batch: true },
];

describe.each(backends())("real exporters on $name", (backend) => {
  let crux: TestCrux;
  beforeAll(async () => {
    crux = await startTestCrux(backend);
  });
  afterAll(async () => {
    await crux?.stop();
  });

  it.each(flavors)("$name: stores the multi-agent trace with normalized agents, tokens, tools, errors and parents", async (flavor) => {
    const exporter = flavor.exporter(crux);
    const processor = flavor.batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter);
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "research-crew" }), spanProcessors: [processor] });
    const { traceId } = emitMultiAgentTrace(provider.getTracer("crux-test"), { startMs: Date.now() - 10_000 });
    await provider.forceFlush();
    await provider.shutdown();

    // Settled and scored: the worker stored the trace's score set (agents, handoffs) and cleared the dirty flag.
    const detail = await eventually(async () => {
      const r = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`);
      return r.status === 200 && r.body.trace.settled && r.body.scoring.status === "scored" && r.body.trace.spanCount === MULTI_AGENT_EXPECTED.spanCount
        ? r.body
        : undefined;
    });

    expect(detail.trace.serviceName).toBe("research-crew");
    expect(detail.trace.rootName).toBe("invoke_agent orchestrator");
    expect(detail.trace.hasError).toBe(true);
    expect(detail.trace.agents).toEqual([...MULTI_AGENT_EXPECTED.agents].sort());

    const byAgent = Object.fromEntries(detail.scoring.agents.map((a: any) => [a.agent, a]));
    expect(Object.keys(byAgent).sort()).toEqual([...MULTI_AGENT_EXPECTED.agents].sort());
    for (const [name, t] of Object.entries(MULTI_AGENT_EXPECTED.tokens)) {
      expect(byAgent[name].inputTokens, `${name} input`).toBe(t.input);
      expect(byAgent[name].outputTokens, `${name} output`).toBe(t.output);
    }
    expect(byAgent.researcher.errors).toBe(1);
    expect(byAgent.researcher.toolCalls).toBe(2);
    expect(byAgent.writer.toolCalls).toBe(1);
    expect(byAgent.researcher.parentAgent).toBe("orchestrator");

    const pairs = detail.scoring.handoffs.map((h: any) => [h.sender, h.receiver]);
    for (const pair of MULTI_AGENT_EXPECTED.handoffs) expect(pairs).toContainEqual(pair);

    // Tree shape: one root, parents linked, the failing tool under the researcher.
    expect(detail.roots).toHaveLength(1);
    expect(detail.orphanSpanIds).toEqual([]);
    const all: any[] = [];
    const walk = (n: any) => (all.push(n), n.children.forEach(walk));
    detail.roots.forEach(walk);
    expect(all).toHaveLength(MULTI_AGENT_EXPECTED.spanCount);
    const failing = all.filter((s) => s.isError);
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatchObject({ toolName: "web_search", operation: "tool", agent: "researcher", errorType: "TimeoutError" });
    const researcherSpan = all.find((s) => s.operation === "agent" && s.agent === "researcher");
    expect(researcherSpan.children.map((c: any) => c.spanId)).toContain(failing[0].spanId);
    const llm = all.filter((s) => s.operation === "llm");
    expect(llm).toHaveLength(5);
    expect(llm.every((s) => s.model === "gpt-4o-mini-2024-07-18" && s.provider === "openai")).toBe(true);
    // Propagated gen_ai.agent.name on LLM spans did not create extra agents.
    expect(detail.scoring.agents).toHaveLength(3);
    expect(all.find((s) => s.parentSpanId === null).tags["crux.task.id"]).toBe("task-42");

    // The scored trace points the failure at the delegation that led there.
    const scores = await eventually(async () => {
      const r = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/scores`);
      return r.body.scored ? r.body.scores : undefined;
    });
    expect(scores.errorPaths).toEqual([expect.objectContaining({ spanId: failing[0].spanId, agent: "researcher", path: "orchestrator > researcher" })]);

    const list = await getJson(`${crux.apiUrl}/api/v1/traces?agent=researcher&hasError=true`);
    expect(list.body.items.map((t: any) => t.traceId)).toContain(traceId);
  });
});
