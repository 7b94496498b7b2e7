/**
 * End to end: a failed run of an experiment task is replayed from the API with corrections of two
 * agents; a test runner behind a real HTTP server checks each request's Standard Webhooks signature,
 * re-runs a fake system in which only the planner's correction fixes the task, and exports each
 * re-run with the tags it was given through a real OTel exporter. The report names the planner
 * decisive, the replay's attribution outranks the others on the trace and counts in /validation.
 * Also: the refusal when the trace has no task to re-run, and body validation.
 */
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { context, trace, type Attributes } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRunner, type FakeRunner } from "./fake-runner.ts";
import { backends, eventually, startTestCrux, type TestCrux } from "./harness.ts";

/** Exports one run: a root span with `rootAttributes`, one agent span per agent. Returns the trace id. */
async function exportRun(otlpUrl: string, rootAttributes: Attributes, agents = ["planner", "coder"]): Promise<string> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "replay-crew" }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: otlpUrl, timeoutMillis: 30_000 }))],
  });
  const tracer = provider.getTracer("runner");
  const root = tracer.startSpan("run", { attributes: rootAttributes });
  const ctx = trace.setSpan(context.active(), root);
  for (const agent of agents) {
    tracer.startSpan(`invoke_agent ${agent}`, { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent } }, ctx).end();
  }
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return root.spanContext().traceId;
}

/** The fake system: the planner's mistake is what fails the task; the coder's output does not matter. */
function rerun(run: any, otlpUrl: string): Promise<string> {
  const fixed = run.corrections.some((c: any) => c.agent === "planner");
  return exportRun(otlpUrl, { ...run.tags, "crux.outcome.success": fixed });
}

describe.each(backends())("counterfactual replay on $name", (backend) => {
  let crux: TestCrux;
  let runner: FakeRunner;
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${crux.apiUrl}/api/v1${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as any };
  };
  const scored = (traceId: string) =>
    eventually(
      async () => {
        const r = await send("GET", `/traces/${traceId}/scores`);
        return r.body?.scored === true ? r.body : undefined;
      },
      60_000,
      100,
    );

  beforeAll(async () => {
    runner = await startFakeRunner((run) => rerun(run, crux.otlpUrl));
    crux = await startTestCrux(backend);
  });
  afterAll(async () => {
    await runner?.close();
    await crux?.stop();
  });

  it("names the agent whose correction alone fixes the run decisive, and records it as the trace's top attribution", async () => {
    const created = await send("POST", "/runners", { name: "local", url: runner.url, allowPrivateTargets: true });
    expect(created.status).toBe(201);
    runner.setSecret(created.body.secret);
    const dataset = await send("POST", "/datasets", { name: "tasks", items: [{ taskId: "t1", input: { ask: "fix the parser" }, expected: "green tests" }] });
    expect((await send("POST", "/experiments", { id: "exp-r", name: "crew", datasetId: dataset.body.id, variants: [{ name: "crew" }] })).status).toBe(201);
    const original = await exportRun(crux.otlpUrl, {
      "crux.experiment.id": "exp-r",
      "crux.variant": "crew",
      "crux.task.id": "t1",
      "crux.trial": 0,
      "input.value": "the root span's own input",
      "crux.outcome.success": false,
    });
    await scored(original);

    const started = await send("POST", `/traces/${original}/replay`, {
      corrections: [
        { agent: "planner", output: "plan: fix the tokenizer first" },
        { agent: "coder", output: "patch v2" },
      ],
      trials: 3,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const replayId = started.body.id as string;
    // The trace is a run of a declared experiment: the task is its dataset item, not the root span's input.
    expect(started.body.task).toEqual({ source: "dataset", taskId: "t1", input: { ask: "fix the parser" }, expected: "green tests" });
    expect(started.body.progress.expected).toBe(9);

    const done = await eventually(
      async () => {
        const r = (await send("GET", `/replays/${replayId}`)).body;
        return r.report.complete === true ? r : undefined;
      },
      150_000,
      250,
    );
    expect(runner.badSignatures()).toBe(0);
    expect(runner.received).toHaveLength(9);
    const plannerOnly = runner.received.find((r) => r.set.id === "agent:planner" && r.trial === 2);
    expect(plannerOnly).toMatchObject({
      type: "replay.run",
      replayId,
      traceId: original,
      corrections: [{ agent: "planner", spanId: null, output: "plan: fix the tokenizer first" }],
      task: { taskId: "t1", input: { ask: "fix the parser" } },
      tags: { "crux.replay.id": replayId, "crux.variant": "agent:planner", "crux.trial": 2, "crux.task.id": "t1" },
    });
    expect(runner.received.find((r) => r.set.id === "all")?.corrections).toHaveLength(2);

    expect(done.progress).toMatchObject({ expected: 9, scored: 9, pending: 0, running: 0, failed: 0, timedOut: 0 });
    const sets = Object.fromEntries(done.report.sets.map((s: any) => [s.id, s]));
    expect(sets["agent:planner"]).toMatchObject({ kind: "single", trials: 3, succeeded: 3, failed: 0, flipRate: 1, majority: true });
    expect(sets["agent:coder"]).toMatchObject({ kind: "single", trials: 3, succeeded: 0, failed: 3, flipRate: 0, majority: false });
    expect(sets.all).toMatchObject({ kind: "combined", agents: ["planner", "coder"], succeeded: 3 });
    expect(done.report).toMatchObject({ complete: true, verdict: "decisive", originalSuccess: false, sharedBlame: null });
    expect(done.report.decisive).toEqual([{ set: "agent:planner", agents: ["planner"], spanIds: [], succeeded: 3, trials: 3 }]);
    expect(done.report.flipRate).toBeCloseTo(6 / 9, 12);
    expect(done.attribution).toMatchObject({ agent: "planner", spanId: null });

    const listed = await send("GET", `/traces/${original}/replays`);
    expect(listed.body.items.map((r: any) => r.id)).toEqual([replayId]);

    // The replay outranks the code heuristics and judges on this trace.
    const attribution = (await send("GET", `/traces/${original}/attribution`)).body;
    expect(attribution.methods[0]).toMatchObject({ method: "replay", source: "replay", rank: 1, pick: { agent: "planner" } });
    expect(attribution.methods.length).toBeGreaterThan(1);

    // And counts in /validation's attribution accuracy against a person's label.
    expect((await send("PUT", `/traces/${original}/labels`, { modes: {}, decisive: { agent: "planner" }, labeller: "ana" })).status).toBe(200);
    const validation = (await send("GET", "/validation")).body;
    expect(validation.attribution.find((a: any) => a.method === "replay")).toMatchObject({ source: "replay", agent: { n: 1, correct: 1, accuracy: 1 } });
  }, 240_000);

  it("refuses a trace with no task to re-run, and names the fields of a bad body", async () => {
    const bare = await exportRun(crux.otlpUrl, { "crux.outcome.success": false });
    await scored(bare);
    const refused = await send("POST", `/traces/${bare}/replay`, { corrections: [{ agent: "planner", output: "x" }] });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(
      /has no task to replay: it is not a run of a dataset item of a declared experiment, and its root span recorded no input/,
    );

    const bad = await send("POST", `/traces/${bare}/replay`, {
      corrections: [
        { agent: "planner", spanId: "00000000000000aa" },
        { spanId: "xyz", output: 1 },
      ],
      trials: 0,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/body \/corrections\/0: give exactly one of agent or spanId/);
    expect(bad.body.message).toMatch(/body \/corrections\/0\/output: required: the corrected output/);
    expect(bad.body.message).toMatch(/body \/corrections\/1\/spanId: must be 16 hex characters/);
    expect(bad.body.message).toMatch(/body \/trials: Too small: expected number to be >=1/);
    const empty = await send("POST", `/traces/${bare}/replay`, { corrections: [], trials: 21 });
    expect(empty.body.message).toMatch(/body \/corrections: give at least one correction/);
    expect(empty.body.message).toMatch(/body \/trials: Too big: expected number to be <=20/);
    const unknownAgent = await send("POST", `/traces/${bare}/replay`, { corrections: [{ agent: "reviewer", output: "x" }] });
    expect(unknownAgent.status).toBe(400);
    expect(unknownAgent.body.message).toMatch(/corrections\[0\]\.agent: agent reviewer does not act in trace .* \(agents: coder, planner\)/);
    const unknownSpan = await send("POST", `/traces/${bare}/replay`, { corrections: [{ spanId: "00000000000000aa", output: "x" }] });
    expect(unknownSpan.body.message).toMatch(/corrections\[0\]\.spanId: span 00000000000000aa is not in trace/);

    // Not an experiment run, but its root span recorded its input: that is the task.
    const withInput = await exportRun(crux.otlpUrl, { "input.value": "summarise the incident", "crux.outcome.success": false });
    await scored(withInput);
    const fromRoot = await send("POST", `/traces/${withInput}/replay`, { corrections: [{ agent: "coder", output: "x" }], trials: 1 });
    expect(fromRoot.status, JSON.stringify(fromRoot.body)).toBe(202);
    expect(fromRoot.body.task).toEqual({ source: "root_span", taskId: null, input: "summarise the incident", expected: null });
    // One correction: its set alone is also "all of them", so no combined set is run.
    expect(fromRoot.body.progress.expected).toBe(1);

    expect((await send("POST", `/traces/${"f".repeat(32)}/replay`, { corrections: [{ agent: "planner", output: "x" }] })).status).toBe(404);
    expect((await send("GET", `/replays/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  }, 120_000);
});
