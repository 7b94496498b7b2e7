/**
 * POST /traces/:id/outcome re-scores through the real worker at once: the
 * sweeper is set to run only every ten minutes, so the new outcome can only
 * show within seconds if the API enqueued the re-score itself.
 */
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { emitMultiAgentTrace } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type TestCrux } from "./harness.ts";

describe.each(backends())("outcome re-score through the worker on $name", (backend) => {
  let crux: TestCrux;
  beforeAll(async () => {
    crux = await startTestCrux(backend, { CRUX_SWEEP_INTERVAL_MS: "600000", CRUX_SWEEP_QUIET_MS: "600000" });
  });
  afterAll(async () => {
    await crux?.stop();
  });

  it("an outcome posted after scoring is in /scores within seconds, without the sweeper", async () => {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": "outcome-crew" }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: crux.otlpUrl }))],
    });
    const { traceId } = emitMultiAgentTrace(provider.getTracer("crux-test"), { startMs: Date.now() - 10_000 });
    await provider.forceFlush();
    await provider.shutdown();
    const scores = `${crux.apiUrl}/api/v1/traces/${traceId}/scores`;
    const first = await eventually(async () => {
      const r = await getJson(scores);
      return r.body.scored ? r.body.scores : undefined;
    });
    expect(first.run.success).toBeNull();

    const posted = await fetch(`${crux.apiUrl}/api/v1/traces/${traceId}/outcome`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ success: false, taskId: "research" }),
    });
    expect(posted.status).toBe(202);
    expect(await posted.json()).toMatchObject({ queued: true });
    const rescored = await eventually(async () => {
      const r = await getJson(scores);
      return r.body.scores?.run.success === false ? r.body.scores : undefined;
    }, 8_000);
    expect(rescored.run.taskId).toBe("research");
    // A failed run gets an attribution once re-scored.
    const attribution = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}/attribution`);
    expect(attribution.body.items.length).toBeGreaterThan(0);
  });
});
