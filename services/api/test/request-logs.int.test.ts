/**
 * The API (as main.ts builds it, with its logger) writes one line per request, once answered,
 * and none for health probes and metric scrapes unless they fail.
 */
import type { Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, capturedLogger } from "./harness.ts";

describe.each(testDatabases())("request logs on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const captured = capturedLogger("info");

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database, { log: captured.log });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("one line per request with method, route, status and duration; none for probes", async () => {
    for (const url of ["/livez", "/readyz", "/healthz", "/metrics"]) expect((await app.inject({ method: "GET", url })).statusCode).toBe(200);
    expect(captured.lines).toEqual([]);

    const res = await app.inject({ method: "GET", url: "/api/v1/traces?limit=5" });
    expect(res.statusCode).toBe(200);
    const missing = await app.inject({ method: "GET", url: "/api/v1/traces/0123456789abcdef0123456789abcdef" });
    expect(missing.statusCode).toBe(404);
    const lines = captured.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      msg: "request",
      method: "GET",
      url: "/api/v1/traces?limit=5",
      route: "/api/v1/traces",
      status: 200,
      reqId: expect.any(String),
    });
    expect(lines[0]!.durationMs).toEqual(expect.any(Number));
    expect(lines[1]).toMatchObject({ msg: "request", route: "/api/v1/traces/:traceId", status: 404 });
  });
});
