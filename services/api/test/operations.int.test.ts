/**
 * Probes and metrics outside /api/v1 (/livez, /readyz, /healthz, /metrics), the
 * start-up gate, and a Postgres outage: every API route answers 503
 * `unavailable` + Retry-After while a TCP proxy in front of Postgres is cut,
 * and serves again once it is back, without a restart.
 */
import { createDatabase, type Database } from "@crux/db";
import { createMetricsRegistry } from "@crux/runtime";
import { startTcpProxy, testDatabases, type TcpProxy } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, capturedLogger } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

type App = Awaited<ReturnType<typeof buildTestApp>>;

/** One request per GET route of the OpenAPI document (path ids filled in), plus writes with valid bodies. */
async function everyRoute(app: App): Promise<{ method: "GET" | "POST" | "PUT" | "DELETE"; url: string; payload?: object }[]> {
  await app.ready();
  const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> };
  const paths = Object.keys(doc.paths).filter((p) => p.startsWith("/api/v1/") && doc.paths[p]!.get);
  const fill = (p: string) => p.replace("{traceId}", hexTraceId(1)).replace("{id}", "00000000-0000-4000-8000-000000000000");
  // Required query parameters, so each route reaches its queries.
  const query: Record<string, string> = { "/api/v1/experiments/{id}/compare": "?against=before&mode=FM-3.2" };
  const gets = paths.map((p) => ({ method: "GET" as const, url: fill(p) + (query[p] ?? "") }));
  return [
    ...gets,
    { method: "POST", url: `/api/v1/traces/${hexTraceId(1)}/outcome`, payload: { success: true } },
    { method: "POST", url: "/api/v1/prices", payload: { model: "m", inputPerMTok: 1, outputPerMTok: 1 } },
    { method: "PUT", url: "/api/v1/settings", payload: { coordinationWeights: null, repetitionK: null } },
    { method: "DELETE", url: "/api/v1/prices/00000000-0000-4000-8000-000000000000" },
  ];
}

describe.each(testDatabases())("probes and metrics on $name", ({ create }) => {
  let database: Database;
  let app: App;

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("/livez, /readyz and /healthz answer 200 with the database check; no auth needed", async () => {
    expect((await app.inject({ method: "GET", url: "/livez" })).json()).toEqual({ status: "ok" });
    for (const url of ["/readyz", "/healthz"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: "ok", checks: { database: { ok: true }, startup: { ok: true } } });
    }
  });

  it("until start-up finished: /api/v1 answers 503 + Retry-After, /readyz says why, /livez is 200", async () => {
    let started = false;
    const gated = await buildTestApp(database, { started: () => started });
    try {
      const res = await gated.inject({ method: "GET", url: "/api/v1/traces" });
      expect(res.statusCode).toBe(503);
      expect(res.headers["retry-after"]).toBe("5");
      expect(res.json()).toMatchObject({ code: "unavailable", message: expect.stringMatching(/starting/) });
      const ready = await gated.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().checks.startup).toMatchObject({ ok: false, error: expect.stringMatching(/waiting for the database/) });
      expect(ready.json().checks.database.ok).toBe(true);
      expect((await gated.inject({ method: "GET", url: "/livez" })).statusCode).toBe(200);
      started = true;
      expect((await gated.inject({ method: "GET", url: "/api/v1/traces" })).statusCode).toBe(200);
      expect((await gated.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    } finally {
      await gated.close();
    }
  });

  it("/metrics: requests by route pattern (not raw URL) and status class, latency histogram, process metrics", async () => {
    const registry = createMetricsRegistry();
    const a = await buildTestApp(database, { registry });
    // A second app on the same registry (the all-in-one process shares one) must not fail on duplicate names.
    const b = await buildTestApp(database, { registry });
    try {
      await a.inject({ method: "GET", url: `/api/v1/traces/${hexTraceId(77)}` });
      await b.inject({ method: "GET", url: `/api/v1/traces/${hexTraceId(78)}` });
      await a.inject({ method: "GET", url: "/api/v1/traces" });
      await a.inject({ method: "GET", url: "/nope" });
      const res = await a.inject({ method: "GET", url: "/metrics" });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
      const text = res.body;
      expect(text).toContain('crux_api_requests_total{method="GET",route="/api/v1/traces/:traceId",status_class="4xx"} 2');
      expect(text).toContain('crux_api_requests_total{method="GET",route="/api/v1/traces",status_class="2xx"} 1');
      expect(text).toContain('crux_api_requests_total{method="GET",route="unmatched",status_class="4xx"} 1');
      expect(text).toMatch(/crux_api_request_duration_seconds_count\{method="GET",route="\/api\/v1\/traces\/:traceId",status_class="4xx"\} 2/);
      expect(text).toMatch(/crux_api_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/traces",status_class="2xx"\} \d/);
      expect(text).not.toContain(hexTraceId(77));
      expect(text).toMatch(/^crux_process_cpu_user_seconds_total /m);
      expect(text).toMatch(/^crux_nodejs_eventloop_lag_seconds /m);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe.runIf(testDatabases().some((d) => d.name === "postgres"))("Postgres outage (TCP proxy cut)", () => {
  const factory = testDatabases().find((d) => d.name === "postgres")!;
  let direct: Database;
  let proxied: Database;
  let proxy: TcpProxy;
  let app: App;
  const captured = capturedLogger("warn");

  beforeAll(async () => {
    direct = await factory.create();
    if (direct.kind !== "postgres") throw new Error("expected Postgres");
    const url = new URL(String(direct.pool.options.connectionString));
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    proxied = await createDatabase({ url: proxy.urlFor(url.toString()), poolSize: 2 });
    app = await buildTestApp(proxied, { log: captured.log });
  });
  afterAll(async () => {
    await app.close();
    await proxied.close();
    await proxy.close();
    await direct.close();
  });

  it("every route answers 503 unavailable + Retry-After; /readyz and /healthz 503 naming the database; /livez 200; all serve again after", async () => {
    const routes = await everyRoute(app);
    expect(routes.length).toBeGreaterThan(20);
    for (const r of routes) expect((await app.inject(r)).statusCode, `${r.method} ${r.url} before the outage`).toBeLessThan(500);

    await proxy.down();
    try {
      for (const r of routes) {
        const res = await app.inject(r);
        expect(res.statusCode, `${r.method} ${r.url}`).toBe(503);
        expect(res.headers["retry-after"]).toBe("5");
        expect(res.json()).toEqual({ code: "unavailable", message: "the database is unreachable; retry later" });
      }
      for (const url of ["/readyz", "/healthz"]) {
        const ready = await app.inject({ method: "GET", url });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toMatchObject({ status: "unavailable", checks: { database: { ok: false, error: expect.any(String) }, startup: { ok: true } } });
      }
      expect((await app.inject({ method: "GET", url: "/livez" })).statusCode).toBe(200);
    } finally {
      await proxy.up();
    }
    for (const r of routes) expect((await app.inject(r)).statusCode, `${r.method} ${r.url} after the outage`).toBeLessThan(500);
    expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    // Logged as unavailability (warn), bounded, never as an unhandled error.
    expect(captured.lines.some((l) => l.includes('"database unavailable"'))).toBe(true);
    expect(captured.text()).not.toContain("unhandled API error");
  });
});
