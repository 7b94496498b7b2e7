import { describe, expect, it } from "vitest";
import { Counter, createMetricsRegistry, createReadiness, scrape } from "../src/index.ts";

describe("metrics registry", () => {
  it("serves counters in the Prometheus text format with the default labels", async () => {
    const registry = createMetricsRegistry({ defaultLabels: { service: "test" }, processMetrics: false });
    const c = new Counter({ name: "crux_test_things_total", help: "things", labelNames: ["reason"], registers: [registry] });
    c.inc({ reason: "bad" }, 3);
    const { contentType, body } = await scrape(registry);
    expect(contentType).toContain("text/plain");
    expect(body).toContain('crux_test_things_total{reason="bad",service="test"} 3');
  });

  it("includes process metrics by default", async () => {
    const { body } = await scrape(createMetricsRegistry());
    expect(body).toContain("crux_process_cpu_seconds_total");
  });
});

describe("readiness", () => {
  it("is ready only when every check answers, and says which did not", async () => {
    const probe = createReadiness({ postgres: async () => {}, redis: async () => Promise.reject(new Error("ECONNREFUSED")) });
    const r = await probe();
    expect(r.ready).toBe(false);
    expect(r.checks.postgres!.ok).toBe(true);
    expect(r.checks.redis).toMatchObject({ ok: false, error: "ECONNREFUSED" });
  });

  it("a check that hangs fails after the timeout", async () => {
    const probe = createReadiness({ postgres: () => new Promise(() => {}) }, { timeoutMs: 50 });
    const r = await probe();
    expect(r).toMatchObject({ ready: false, checks: { postgres: { ok: false, error: "no answer within 50 ms" } } });
  });
});
