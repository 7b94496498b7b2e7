/**
 * The judges end to end through the one process (receiver, worker, API): a
 * project's judge settings over REST, a clean trace exported with a real OTel
 * exporter is not judged at sampling share 0, POST /traces/:id/judge (202)
 * judges it anyway, and its verdict, call record and spend appear in the API.
 * The first suite is a scripted factory with createJudgeSuite's shape; the
 * second case runs the real one (the default) against the local mock provider:
 * the key stored over REST reaches the provider decrypted, and an unreadable
 * reply is a failed verdict with every call recorded.
 */
import { SpanKind, trace, ROOT_CONTEXT } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { mastModeIds } from "@crux/contracts";
import type { JudgeSuiteFactory } from "@crux/worker";
import { startMockLlmServer } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type TestCrux } from "./harness.ts";

const KEY = "sk-e2e-provider-key-4242";

/** One judge; one $0.02 call per run; records the settings it was built with. */
function scriptedSuite(built: unknown[]): JudgeSuiteFactory {
  return (settings) => {
    built.push(settings);
    return {
      judges: [
        {
          id: "judge.mast-checklist",
          kind: "mast-checklist",
          version: 3,
          model: settings.model,
          inputs: ["spans"],
          asksAbout: mastModeIds,
          async run({ spans }) {
            const base = { kind: "mast-checklist" as const, promptVersion: 3, provider: settings.provider, model: settings.model };
            return {
              status: "succeeded",
              result: {
                ...base,
                findings: [],
                attribution: null,
                outcome: null,
                omitted: [`saw ${spans.length} spans`],
                rejected: [],
                selfPreferenceWarning: null,
              },
              calls: [{ ...base, inputTokens: 900, outputTokens: 80, costUsd: 0.02, latencyMs: 5, outcome: "ok", error: null }],
            };
          },
        },
      ],
    };
  };
}

/** One agent and one model call, no error and no outcome: a trace that did not fail. */
async function exportCleanTrace(otlpUrl: string): Promise<string> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "judged-crew" }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: otlpUrl }))],
  });
  const tracer = provider.getTracer("crux-test");
  const start = Date.now() - 5_000;
  const root = tracer.startSpan("invoke_agent writer", {
    startTime: start,
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "writer" },
  });
  tracer
    .startSpan(
      "chat gpt-4o-mini",
      {
        kind: SpanKind.CLIENT,
        startTime: start + 5,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.usage.input_tokens": 10,
          "gen_ai.usage.output_tokens": 5,
        },
      },
      trace.setSpan(ROOT_CONTEXT, root),
    )
    .end(start + 50);
  root.end(start + 60);
  const traceId = root.spanContext().traceId;
  await provider.forceFlush();
  await provider.shutdown();

  return traceId;
}

describe.each(backends())("judges end to end on $name", (backend) => {
  let crux: TestCrux;
  const built: unknown[] = [];
  beforeAll(async () => {
    crux = await startTestCrux(backend, { CRUX_SECRET_KEY: "an end-to-end secret of thirty-two characters" }, undefined, { judgeSuites: scriptedSuite(built) });
  });
  afterAll(async () => {
    await crux?.stop();
  });

  it("a clean trace outside the sampled share is judged on POST /traces/:id/judge; verdict, call and spend are served", async () => {
    const api = `${crux.apiUrl}/api/v1`;
    const put = await fetch(`${api}/judge-settings`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: KEY, samplingShare: 0, kinds: ["mast-checklist"] }),
    });
    expect(put.status).toBe(200);
    expect(await put.text()).not.toContain(KEY);

    const traceId = await exportCleanTrace(crux.otlpUrl);
    await eventually(async () => ((await getJson(`${api}/traces/${traceId}/scores`)).body.scored ? true : undefined));
    // Scored, not failed, share 0: not judged.
    expect((await getJson(`${api}/traces/${traceId}/verdicts`)).body.items).toEqual([]);

    const posted = await fetch(`${api}/traces/${traceId}/judge`, { method: "POST" });
    expect(posted.status).toBe(202);
    const verdicts = await eventually(async () => {
      const items = (await getJson(`${api}/traces/${traceId}/verdicts`)).body.items;
      return items.length > 0 ? items : undefined;
    });
    expect(verdicts).toEqual([
      expect.objectContaining({
        producerId: "judge.mast-checklist",
        producerVersion: 3,
        model: "claude-sonnet-4-5",
        status: "succeeded",
        selfPreferenceWarning: null,
      }),
    ]);
    expect(verdicts[0].result.omitted).toEqual(["saw 2 spans"]);
    expect(built).toEqual([{ provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: null, apiKey: KEY }]);

    const calls = await getJson(`${api}/judge-calls?traceId=${traceId}`);
    expect(calls.body.items).toEqual([expect.objectContaining({ kind: "mast-checklist", model: "claude-sonnet-4-5", costUsd: 0.02, outcome: "ok" })]);
    const settings = await getJson(`${api}/judge-settings`);
    expect(settings.body.budget.spentUsd).toBeCloseTo(0.02, 10);
    expect(settings.body.effective).toMatchObject({ enabled: true, source: "project" });
  });
});

describe.each(backends())("packages/judges through the worker on $name", (backend) => {
  let crux: TestCrux;
  let mock: Awaited<ReturnType<typeof startMockLlmServer>>;
  beforeAll(async () => {
    mock = await startMockLlmServer();
    crux = await startTestCrux(backend, { CRUX_SECRET_KEY: "an end-to-end secret of thirty-two characters" });
  });
  afterAll(async () => {
    await crux?.stop();
    await mock?.close();
  });

  it("calls the project's provider with its decrypted key; an unreadable reply is a failed verdict, every call recorded", async () => {
    const api = `${crux.apiUrl}/api/v1`;
    mock.respondWith(() => ({ text: "I cannot answer in JSON today", inputTokens: 500, outputTokens: 20 }));
    const put = await fetch(`${api}/judge-settings`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "anthropic", model: "claude-haiku-4-5", baseUrl: mock.url, apiKey: KEY, samplingShare: 0, kinds: ["mast-checklist"] }),
    });
    expect(put.status).toBe(200);
    const traceId = await exportCleanTrace(crux.otlpUrl);
    await eventually(async () => ((await getJson(`${api}/traces/${traceId}/scores`)).body.scored ? true : undefined));
    expect((await fetch(`${api}/traces/${traceId}/judge`, { method: "POST" })).status).toBe(202);

    const verdicts = await eventually(async () => {
      const items = (await getJson(`${api}/traces/${traceId}/verdicts`)).body.items;
      return items.length > 0 ? items : undefined;
    }, 30_000);
    expect(verdicts).toEqual([expect.objectContaining({ producerId: "judge.mast-checklist", model: "claude-haiku-4-5", status: "failed" })]);
    expect(mock.requests.length).toBeGreaterThan(0);
    for (const r of mock.requests) expect(r.headers.authorization ?? r.headers["x-api-key"]).toContain(KEY);
    const calls = (await getJson(`${api}/judge-calls?traceId=${traceId}`)).body.items;
    expect(calls).toHaveLength(mock.requests.length);
    expect(calls.every((c: { outcome: string; inputTokens: number }) => c.outcome === "invalid_reply" && c.inputTokens === 500)).toBe(true);

    // The endpoint is fixed: a request runs the failed verdict again (it answered 202 and did nothing before) and says so.
    const modes = ["1.1", "1.2", "1.3", "1.4", "1.5", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "3.1", "3.2", "3.3"];
    mock.respondWith(() => ({ text: JSON.stringify({ answers: modes.map((m) => ({ mode: `FM-${m}`, answer: "no" })) }), inputTokens: 500, outputTokens: 20 }));
    const retry = await fetch(`${api}/traces/${traceId}/judge`, { method: "POST" });
    expect(retry.status).toBe(202);
    expect(((await retry.json()) as { judges: unknown }).judges).toEqual([{ judge: "judge.mast-checklist", model: "claude-haiku-4-5", action: "retry" }]);
    const retried = await eventually(async () => {
      const items = (await getJson(`${api}/traces/${traceId}/verdicts`)).body.items;
      return items.some((v: { status: string }) => v.status === "succeeded") ? items : undefined;
    }, 30_000);
    // The retry's verdict replaces the failed one of the same key.
    expect(retried).toEqual([expect.objectContaining({ producerId: "judge.mast-checklist", model: "claude-haiku-4-5", status: "succeeded" })]);
    const paidCalls = mock.requests.length;

    // Asked again: cached, nothing paid twice.
    const again = await fetch(`${api}/traces/${traceId}/judge`, { method: "POST" });
    expect(((await again.json()) as { judges: unknown }).judges).toEqual([{ judge: "judge.mast-checklist", model: "claude-haiku-4-5", action: "cached" }]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(mock.requests.length).toBe(paidCalls);
  }, 90_000);
});
