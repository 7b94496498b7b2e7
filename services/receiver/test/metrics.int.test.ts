/**
 * GET /metrics on the OTLP/HTTP port (Prometheus text): spans accepted,
 * spans rejected by reason, requests by transport and status, latency,
 * in-flight requests and bytes, the last queue-depth reading. The registry is
 * a dependency, so the all-in-one process can share one.
 */
import * as grpc from "@grpc/grpc-js";
import { createMetricsRegistry } from "@crux/runtime";
import { describe, expect, it } from "vitest";
import { EXPORT_METHOD_PATH } from "../src/grpc.ts";
import { backends, eventually, jsonExport, jsonSpan, protoExport, startReceiver } from "./support.ts";

const JSON_CT = { "content-type": "application/json" };

/** The value of one series in a Prometheus text scrape, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(backends())("receiver metrics on $name", (backend) => {
  it("counts spans, rejections by reason, requests by transport and status, and shows in-flight gauges", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const r = await startReceiver(backend, {}, { registry, depthRefreshMs: 50 });
    const client = new grpc.Client(r.grpcAddress, grpc.credentials.createInsecure());
    try {
      const ok = await fetch(r.otlpUrl, { method: "POST", body: jsonExport([jsonSpan(1), jsonSpan(2), jsonSpan(3)]), headers: JSON_CT });
      expect(ok.status).toBe(200);
      const partial = await fetch(r.otlpUrl, {
        method: "POST",
        body: jsonExport([jsonSpan(4), jsonSpan(5, { spanId: "00" }), jsonSpan(6, { traceId: "0".repeat(32) })]),
        headers: JSON_CT,
      });
      expect(partial.status).toBe(200);
      expect((await fetch(r.otlpUrl, { method: "POST", body: "{", headers: JSON_CT })).status).toBe(400);
      await new Promise<void>((resolve, reject) =>
        client.makeUnaryRequest(
          EXPORT_METHOD_PATH,
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from(protoExport([jsonSpan(7), jsonSpan(8, { endTimeUnixNano: (2n ** 63n).toString() })])),
          (err) => (err ? reject(err) : resolve()),
        ),
      );
      // The in-flight slot is held until the settle enqueue after the answer is done.
      await eventually(async () => (r.receiver.pipeline.inFlight() === 0 ? true : undefined));

      const res = await fetch(`${r.baseUrl}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(sample(text, "crux_receiver_spans_accepted_total")).toBe(5);
      expect(sample(text, 'crux_receiver_spans_rejected_total{reason="invalid_span_id"}')).toBe(1);
      expect(sample(text, 'crux_receiver_spans_rejected_total{reason="invalid_trace_id"}')).toBe(1);
      expect(sample(text, 'crux_receiver_spans_rejected_total{reason="time_out_of_range"}')).toBe(1);
      expect(sample(text, 'crux_receiver_requests_total{transport="http",status="200"}')).toBe(2);
      expect(sample(text, 'crux_receiver_requests_total{transport="http",status="400"}')).toBe(1);
      expect(sample(text, 'crux_receiver_requests_total{transport="grpc",status="OK"}')).toBe(1);
      expect(sample(text, 'crux_receiver_request_duration_seconds_count{transport="http"}')).toBe(3);
      expect(sample(text, 'crux_receiver_request_duration_seconds_count{transport="grpc"}')).toBe(1);
      expect(sample(text, "crux_receiver_inflight_requests")).toBe(0);
      expect(sample(text, "crux_receiver_inflight_bytes")).toBe(0);
      // Four traces' settle jobs are pending (delay 5 s) at the last reading.
      await eventually(async () => {
        const now = await (await fetch(`${r.baseUrl}/metrics`)).text();
        return sample(now, "crux_receiver_queue_depth")! >= 1 ? true : undefined;
      });
      // Scrapes are not counted as exports.
      expect(sample(await (await fetch(`${r.baseUrl}/metrics`)).text(), 'crux_receiver_requests_total{transport="http",status="200"}')).toBe(2);
    } finally {
      client.close();
      await r.stop();
    }
  });

  it("a shared registry: the receiver's series appear next to others, and a second receiver on it does not fail", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const a = await startReceiver(backend, {}, { registry });
    const b = await startReceiver(backend, {}, { registry });
    try {
      expect((await fetch(a.otlpUrl, { method: "POST", body: jsonExport([jsonSpan(1)]), headers: JSON_CT })).status).toBe(200);
      expect((await fetch(b.otlpUrl, { method: "POST", body: jsonExport([jsonSpan(2)]), headers: JSON_CT })).status).toBe(200);
      const text = await registry.metrics();
      expect(sample(text, 'crux_receiver_requests_total{transport="http",status="200"}')).toBe(2);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
