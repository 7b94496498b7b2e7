/**
 * Scoring end to end: a real OTel exporter sends a multi-agent run with a
 * repeated tool call, a handoff that breaks its contract (schema and a dropped
 * constraint) and a final write no verifier checked; the worker scores it and
 * the API serves each finding (agent and span), per-agent tokens and cost,
 * and the failure-mode rates. A group chat traced as one agent span per turn
 * (no model or tool spans) is scored on its turns and attributed. A failed
 * run of a service with no configuration at all still gets its finding. Runs
 * on every backend.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type TestCrux } from "./harness.ts";

const SERVICE = "scoring-crew";

function emitFlawedRun(tracer: Tracer, startMs: number) {
  let t = startMs;
  const ids: Record<string, string[]> = {};
  const open = (name: string, parent: Span | null, attrs: Record<string, string | number | boolean>, kind = SpanKind.INTERNAL) => {
    const s = tracer.startSpan(name, { kind, attributes: attrs, startTime: (t += 10) }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
    (ids[name] ??= []).push(s.spanContext().spanId);
    return s;
  };
  const agent = (name: string, parent: Span | null) =>
    open(`invoke_agent ${name}`, parent, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name });
  const chat = (parent: Span, input: number, output: number) =>
    open(
      "chat test-model",
      parent,
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "test-model",
        "gen_ai.provider.name": "openai",
        "gen_ai.usage.input_tokens": input,
        "gen_ai.usage.output_tokens": output,
      },
      SpanKind.CLIENT,
    ).end((t += 30));
  const tool = (parent: Span, name: string, args: object) =>
    open(`execute_tool ${name}`, parent, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      "gen_ai.tool.call.arguments": JSON.stringify(args),
    });

  const planner = agent("planner", null);
  planner.setAttributes({
    "crux.task.id": "csv-export",
    "crux.outcome.success": false,
    "crux.task.goal": "Build the CSV exporter. Constraint: must use python 3.12 and no network access.",
  });
  chat(planner, 100, 20);
  // Handoff 1 breaks the contract: no "deadline" (schema) and the python 3.12 constraint is dropped.
  const toCoder = tool(planner, "transfer_to_coder", { message: "Build the CSV exporter" });
  const coder = agent("coder", toCoder);
  chat(coder, 200, 40);
  for (let i = 0; i < 3; i++) tool(coder, "run_tests", { path: "tests/" }).end((t += 20)); // same call three times
  tool(coder, "write_file", { path: "export.py", content: "v1" }).end((t += 5));
  coder.end((t += 5));
  toCoder.end((t += 1));

  const toReviewer = tool(planner, "transfer_to_reviewer", { message: "Review export.py: must use python 3.12" });
  const reviewer = agent("reviewer", toReviewer);
  chat(reviewer, 50, 10);
  reviewer.end((t += 5));
  toReviewer.end((t += 1));

  // The coder writes again after the review: nothing verifies the final artifact.
  const back = tool(planner, "transfer_to_coder", { message: "Apply the review using python 3.12", deadline: "today" });
  const coder2 = agent("coder", back);
  tool(coder2, "write_file", { path: "export.py", content: "v2" }).end((t += 5));
  coder2.end((t += 5));
  back.end((t += 1));
  planner.end((t += 5));
  return { traceId: planner.spanContext().traceId, ids };
}

/** A group chat traced without model instrumentation: one invoke_agent span per turn under the manager's. */
function emitGroupChat(tracer: Tracer, startMs: number) {
  let t = startMs;
  const agent = (name: string, parent: Span | null, output: string | null) => {
    const s = tracer.startSpan(
      `invoke_agent ${name}`,
      { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name }, startTime: (t += 10) },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    );
    if (output !== null) s.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: output }] }]));
    return s;
  };
  const manager = agent("group_chat_manager", null, null);
  manager.setAttributes({ "crux.outcome.success": false, "crux.task.goal": "Find the 2023 population of Lyon and cite the INSEE source" });
  const stale = "Lyon had about 516,000 inhabitants in 2021 according to INSEE.";
  const turns: Array<[string, string]> = [
    ["orchestrator", "Researcher, find the 2023 population of Lyon with its INSEE source."],
    ["researcher", stale],
    ["orchestrator", "We need the 2023 figure specifically, check the latest INSEE release."],
    ["researcher", stale],
    ["orchestrator", "That is still the 2021 number. Search the INSEE 2023 estimates for Lyon."],
    ["researcher", stale],
    ["orchestrator", "Final answer: Lyon had about 516,000 inhabitants according to INSEE."],
  ];
  const spanIds = turns.map(([speaker, text]) => {
    const s = agent(speaker, manager, text);
    s.end((t += 5));
    return s.spanContext().spanId;
  });
  manager.end((t += 5));
  return { traceId: manager.spanContext().traceId, spanIds };
}

/** A failed run whose tool call times out, is never retried, and the agent answers anyway; its service has no contract or milestone set. */
function emitGaveUpRun(tracer: Tracer, startMs: number) {
  let t = startMs;
  const open = (name: string, parent: Span | null, attrs: Record<string, string | number | boolean>) =>
    tracer.startSpan(name, { attributes: attrs, startTime: (t += 10) }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
  const chat = (parent: Span) => open("chat test-model", parent, { "gen_ai.operation.name": "chat", "gen_ai.request.model": "test-model" }).end((t += 30));
  const root = open("invoke_agent billing", null, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing", "crux.outcome.success": false });
  chat(root);
  const lookup = open("execute_tool lookup_invoice", root, { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_invoice" });
  lookup.setStatus({ code: SpanStatusCode.ERROR, message: "invoice service timed out" });
  lookup.end((t += 20));
  chat(root);
  root.end((t += 5));
  return { traceId: root.spanContext().traceId };
}

describe.each(backends())("scoring end to end on $name", (backend) => {
  let crux: TestCrux;
  beforeAll(async () => {
    crux = await startTestCrux(backend);
    const post = async (path: string, body: object) => {
      const res = await fetch(`${crux.apiUrl}/api/v1${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(201);
    };
    await post("/prices", { model: "test-model", inputPerMTok: 1, outputPerMTok: 2 });
    await post("/agent-contracts", { serviceName: SERVICE, agent: "reviewer", role: "reviewer", isVerifier: true, forbiddenTools: ["write_file"] });
    await post("/handoff-contracts", {
      serviceName: SERVICE,
      sender: "planner",
      receiver: "coder",
      jsonSchema: { type: "object", required: ["message", "deadline"] },
      requiredConstraints: ["python 3.12"],
    });
  });
  afterAll(async () => {
    await crux?.stop();
  });

  it("finds each injected failure with its agent and span, and serves tokens, cost and rates", async () => {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": SERVICE }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: crux.otlpUrl }))],
    });
    const { traceId, ids } = emitFlawedRun(provider.getTracer("scoring-test"), Date.now() - 60_000);
    await provider.forceFlush();
    await provider.shutdown();

    const findings = await eventually(async () => {
      const r = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/findings?limit=500`);
      return r.status === 200 && r.body.scored ? (r.body.items as any[]) : undefined;
    }, 20_000);
    const byMode = (mode: string) => findings.filter((f) => f.mode === mode);
    if (process.env.DEBUG_SCORING) console.log(JSON.stringify(findings, null, 1));

    const repetition = byMode("FM-1.3");
    expect(repetition).toHaveLength(1);
    expect(repetition[0]).toMatchObject({ agent: "coder", source: "heuristic" });
    expect(ids["execute_tool run_tests"]).toContain(repetition[0].spanId);

    const schemaBreak = byMode("FM-1.1");
    expect(schemaBreak.length).toBeGreaterThanOrEqual(1);
    expect(schemaBreak[0]).toMatchObject({ agent: "planner", source: "contract", confidence: 1, spanId: ids["execute_tool transfer_to_coder"]![0] });

    const dropped = byMode("FM-2.4");
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    expect(dropped[0]).toMatchObject({ agent: "planner", source: "contract", spanId: ids["execute_tool transfer_to_coder"]![0] });
    expect(dropped[0].evidence).toMatch(/python 3\.12/i);

    const unverified = byMode("FM-3.2");
    expect(unverified).toHaveLength(1);
    expect(unverified[0]).toMatchObject({ agent: "coder", spanId: ids["execute_tool write_file"]![1] });

    // Per-agent tokens and cost from the project's price (1 $/MTok in, 2 $/MTok out).
    const agents = await getJson(`${crux.apiUrl}/api/v1/metrics/agents?service=${SERVICE}`);
    expect(agents.status).toBe(200);
    const usage = Object.fromEntries(agents.body.agents.map((a: any) => [a.agent, a]));
    expect(usage.planner).toMatchObject({ inputTokens: 100, outputTokens: 20 });
    expect(usage.coder).toMatchObject({ inputTokens: 200, outputTokens: 40 });
    expect(usage.reviewer).toMatchObject({ inputTokens: 50, outputTokens: 10 });
    expect(usage.planner.costUsd).toBeCloseTo((100 * 1 + 20 * 2) / 1e6, 12);
    expect(usage.coder.costUsd).toBeCloseTo((200 * 1 + 40 * 2) / 1e6, 12);
    expect(usage.reviewer.costUsd).toBeCloseTo((50 * 1 + 10 * 2) / 1e6, 12);

    // Rates over the one trace in scope: each injected mode 1/1, an absent mode 0/1.
    const modes = await getJson(`${crux.apiUrl}/api/v1/metrics/failure-modes?service=${SERVICE}`);
    expect(modes.status).toBe(200);
    const rate = (mode: string) => modes.body.rates.find((r: any) => r.mode === mode);
    for (const mode of ["FM-1.3", "FM-1.1", "FM-2.4", "FM-3.2"]) expect(rate(mode), mode).toMatchObject({ numerator: 1, denominator: 1, rate: 1 });
    expect(rate("FM-2.1")).toMatchObject({ numerator: 0, denominator: 1 });

    // The run failed: a decisive-error attribution names the planner's broken handoff first.
    const attribution = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/attribution`);
    expect(attribution.body.items[0]).toMatchObject({ method: "first_failed_handoff_contract", agent: "planner" });
  });

  it("out of the box: a failed run with an unrecovered tool error and no configuration gets a MAST finding, and its mode is measured", async () => {
    const service = `${SERVICE}-unconfigured`;
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": service }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: crux.otlpUrl }))],
    });
    const { traceId } = emitGaveUpRun(provider.getTracer("gave-up-test"), Date.now() - 60_000);
    await provider.forceFlush();
    await provider.shutdown();

    const findings = await eventually(async () => {
      const r = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/findings?limit=500`);
      return r.status === 200 && r.body.scored ? (r.body.items as any[]) : undefined;
    }, 20_000);
    expect(findings.map((f) => [f.mode, f.agent, f.source])).toEqual([["FM-3.1", "billing", "heuristic"]]);
    expect(findings[0].evidence).toContain("lookup_invoice");

    const modes = await getJson(`${crux.apiUrl}/api/v1/metrics/failure-modes?service=${service}`);
    const rate = (mode: string) => modes.body.rates.find((r: any) => r.mode === mode);
    expect(rate("FM-3.1")).toMatchObject({ numerator: 1, denominator: 1, rate: 1, measured: true, detectors: ["premature-stop"] });
    expect(rate("FM-1.2")).toMatchObject({ rate: null, measured: false });
  });

  it("late spans: a trace exported in three parts with pauses is scored on all of its spans", async () => {
    const exporter = new OTLPTraceExporter({ url: crux.otlpUrl });
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": `${SERVICE}-late` }), spanProcessors: [] });
    const tracer = provider.getTracer("late-test");
    const start = Date.now() - 30_000;
    const root = tracer.startSpan("invoke_agent lead", {
      startTime: start,
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "lead" },
    });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    const part = (n: number) => {
      const s = tracer.startSpan(
        "chat test-model",
        {
          startTime: start + n * 100,
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "test-model",
            "gen_ai.usage.input_tokens": 10 * n,
            "gen_ai.usage.output_tokens": n,
          },
        },
        ctx,
      );
      s.end(start + n * 100 + 50);
      return s as unknown as import("@opentelemetry/sdk-trace-base").ReadableSpan;
    };
    const send = (spans: import("@opentelemetry/sdk-trace-base").ReadableSpan[]) =>
      new Promise<void>((resolve, reject) => exporter.export(spans, (r) => (r.code === 0 ? resolve() : reject(r.error))));
    const traceId = root.spanContext().traceId;
    const scores = async () => (await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/scores`)).body;

    await send([part(1)]); // child first, parent not yet there
    await eventually(async () => ((await scores()).scored ? true : undefined), 20_000);
    await send([part(2)]);
    await new Promise((r) => setTimeout(r, 400));
    root.end(start + 1_000);
    await send([part(3), root as unknown as import("@opentelemetry/sdk-trace-base").ReadableSpan]);

    const final = await eventually(async () => {
      const body = await scores();
      return body.scored && body.scores?.totals.inputTokens === 60 ? body.scores : undefined;
    }, 20_000);
    expect(final.totals).toMatchObject({ inputTokens: 10 + 20 + 30, outputTokens: 1 + 2 + 3 });
    const detail = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`);
    expect(detail.body.trace.spanCount).toBe(4);
    expect(detail.body.orphanSpanIds).toEqual([]);
  });
  it("scores a group chat traced as one agent span per turn: turns are steps, the repeated turn is found and attributed", async () => {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": `${SERVICE}-group-chat` }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: crux.otlpUrl }))],
    });
    const { traceId, spanIds } = emitGroupChat(provider.getTracer("group-chat-test"), Date.now() - 60_000);
    await provider.forceFlush();
    await provider.shutdown();

    const findings = await eventually(async () => {
      const r = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/findings?limit=500`);
      return r.status === 200 && r.body.scored ? (r.body.items as any[]) : undefined;
    }, 20_000);
    expect(findings.map((f) => [f.mode, f.agent, f.spanId])).toEqual([["FM-1.3", "researcher", spanIds[5]]]);

    const trajectories = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/trajectories`);
    expect(trajectories.status).toBe(200);
    const steps = (trajectories.body.items as any[]).flatMap((a) => a.steps.map((st: any) => [st.index, st.kind, a.agent]));
    expect(steps.sort((a, b) => a[0] - b[0]).map((st) => st.slice(1))).toEqual([
      ["message", "orchestrator"],
      ["message", "researcher"],
      ["message", "orchestrator"],
      ["message", "researcher"],
      ["message", "orchestrator"],
      ["message", "researcher"],
      ["message", "orchestrator"],
    ]);

    // The run failed: rank 1 names the researcher's turn the loop started from.
    const attribution = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/attribution`);
    expect(attribution.status).toBe(200);
    expect(attribution.body.items.length).toBeGreaterThan(0);
    expect(attribution.body.items[0]).toMatchObject({ rank: 1, method: "suspect", agent: "researcher", spanId: spanIds[1], stepIndex: 1 });
  });
});
