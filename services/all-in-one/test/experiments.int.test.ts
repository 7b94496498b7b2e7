/**
 * End to end: an experiment with a single-agent baseline and leave-one-out ablations is started from
 * the API; a test runner behind a real HTTP server checks each request's Standard Webhooks signature,
 * runs a fake system whose outcome depends on the active agents, and exports the trace with the run's
 * tags through a real OTel exporter; the progress reaches every run scored and the report credits the
 * agents as the fake system was built.
 */
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRunner, type FakeRunner } from "./fake-runner.ts";
import { backends, eventually, startTestCrux, type TestCrux } from "./harness.ts";

const AGENTS = ["planner", "reviewer", "worker"];

/** The fake system: the worker does the job, the planner makes every trial succeed (alone the worker succeeds on trial 0 only), the reviewer breaks what it touches on task 0. */
function succeeds(active: string[] | null, taskId: string, trial: number): boolean {
  const set = active ?? ["solo"];
  if (set.includes("solo")) return trial === 0 && taskId !== "t0";
  if (!set.includes("worker")) return false;
  if (set.includes("reviewer") && taskId === "t0") return false;
  return set.includes("planner") || trial === 0;
}

/** Runs the fake system for one request and exports its trace with the tags the request carried. */
async function runSystem(run: any, otlpUrl: string): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "experiment-crew" }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: otlpUrl, timeoutMillis: 30_000 }))],
  });
  const tracer = provider.getTracer("runner");
  const ok = succeeds(run.variant.activeAgents, run.task.taskId, run.trial);
  const root = tracer.startSpan("run", { attributes: { ...run.tags, "crux.outcome.success": ok } });
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
}

describe.each(backends())("an experiment run from Crux on $name", (backend) => {
  let crux: TestCrux;
  let runner: FakeRunner;
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${crux.apiUrl}/api/v1${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as any };
  };

  beforeAll(async () => {
    runner = await startFakeRunner((run) => runSystem(run, crux.otlpUrl));
    crux = await startTestCrux(backend);
  });
  afterAll(async () => {
    await runner?.close();
    await crux?.stop();
  });

  it("dispatches signed runs within the cap, collects their traces, and reports the agents' credit", async () => {
    const created = await send("POST", "/runners", { name: "local", url: runner.url, allowPrivateTargets: true });
    expect(created.status).toBe(201);
    runner.setSecret(created.body.secret);
    const dataset = await send("POST", "/datasets", {
      name: "tasks",
      items: ["t0", "t1", "t2", "t3"].map((taskId) => ({ taskId, input: { ask: taskId } })),
    });
    const exp = await send("POST", "/experiments", {
      id: "e2e",
      name: "crew vs solo",
      datasetId: dataset.body.id,
      runnerId: created.body.id,
      trials: 2,
      variants: [
        { name: "solo", isBaseline: true },
        { name: "crew", activeAgents: AGENTS },
      ],
    });
    expect(exp.status, JSON.stringify(exp.body)).toBe(201);
    expect((await send("POST", "/experiments/e2e/ablations", { mode: "leave_one_out" })).body.added).toHaveLength(3);

    await send("PUT", "/experiment-settings", { maxRunsPerStart: 10, concurrency: 4 });
    const capped = await send("POST", "/experiments/e2e/start");
    expect(capped.status).toBe(400);
    expect(capped.body.message).toMatch(/would dispatch 40 runs; the project's cap is 10/);
    await send("PUT", "/experiment-settings", { maxRunsPerStart: 100, concurrency: 8, runTimeoutMs: 120_000 });
    const started = await send("POST", "/experiments/e2e/start");
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ experimentId: "e2e", dispatches: 40, cap: 100, concurrency: 8 });

    const done = await eventually(
      async () => {
        const p = (await send("GET", "/experiments/e2e/progress")).body;
        return p.scored === 40 ? p : undefined;
      },
      150_000,
      250,
    );
    expect(done).toMatchObject({ expected: 40, pending: 0, running: 0, failed: 0, timedOut: 0 });
    expect(runner.badSignatures()).toBe(0);
    expect(runner.received).toHaveLength(40);
    // A second start plans nothing new.
    expect((await send("POST", "/experiments/e2e/start")).body.dispatches).toBe(0);

    const report = (await send("GET", "/experiments/e2e/report")).body;
    expect(report.baseline).toBe("solo");
    expect(report.candidate).toBe("crew");
    const crew = report.variants.find((v: any) => v.name === "crew");
    expect(crew.runs).toBe(8);
    // crew: t0 always fails (the reviewer), t1..t3 always succeed → 3/4; solo: trial 0 of t1..t3 → 3/8.
    expect(crew.successRate.estimate).toBeCloseTo(3 / 4, 10);
    const solo = report.variants.find((v: any) => v.name === "solo");
    expect(solo.successRate.estimate).toBeCloseTo(3 / 8, 10);
    expect(crew.vsBaseline.qualityDifference.estimate).toBeCloseTo(3 / 4 - 3 / 8, 10);
    const verdicts = Object.fromEntries(report.credit.leaveOneOut.map((l: any) => [l.agent, l.verdict]));
    // Without the worker nothing succeeds; without the planner only trial 0 succeeds on t1..t3 (3/8); without the reviewer t0 passes too.
    expect(verdicts.worker).toBe("contributes");
    expect(report.credit.leaveOneOut.find((l: any) => l.agent === "planner").delta.estimate).toBeCloseTo(3 / 4 - 3 / 8, 10);
    expect(report.credit.leaveOneOut.find((l: any) => l.agent === "reviewer").delta.estimate).toBeCloseTo(-1 / 4, 10);
    expect(report.credit.leaveOneOut.every((l: any) => l.pairedTasks === 4)).toBe(true);
  }, 240_000);
});
