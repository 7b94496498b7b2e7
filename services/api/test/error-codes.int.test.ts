/**
 * Every error answer's status is the one @crux/contracts maps its code to,
 * including Fastify's own refusals (a body over the limit, another media type,
 * malformed JSON), each with its own code.
 */
import { errorStatus } from "@crux/contracts";
import type { Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

describe.each(testDatabases())("error codes on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("each refusal has its code, and the code's status", async () => {
    const cases = [
      {
        expected: "body_too_large",
        req: { method: "POST", url: "/api/v1/prices", headers: { "content-type": "application/json" }, payload: `{"model":"${"x".repeat(1_100_000)}"}` },
      },
      {
        expected: "unsupported_media_type",
        req: { method: "POST", url: "/api/v1/prices", headers: { "content-type": "application/xml" }, payload: "<model/>" },
      },
      { expected: "invalid_request", req: { method: "POST", url: "/api/v1/prices", headers: { "content-type": "application/json" }, payload: "{not json" } },
      { expected: "invalid_request", req: { method: "GET", url: "/api/v1/traces/not-a-trace-id" } },
      { expected: "not_found", req: { method: "GET", url: `/api/v1/traces/${hexTraceId(0x404)}` } },
      { expected: "not_found", req: { method: "GET", url: "/api/v1/no-such-route" } },
      { expected: "invalid_cursor", req: { method: "GET", url: "/api/v1/traces?cursor=AAAA" } },
      { expected: "invalid_window", req: { method: "GET", url: "/api/v1/metrics/agents?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z" } },
    ] as const;
    for (const c of cases) {
      const res = await app.inject(c.req);
      const label = `${c.req.method} ${c.req.url.slice(0, 60)}: ${res.body.slice(0, 200)}`;
      expect(res.json().code, label).toBe(c.expected);
      expect(res.statusCode, label).toBe(errorStatus[c.expected]);
    }
    expect(errorStatus.body_too_large).toBe(413);
    expect(errorStatus.unsupported_media_type).toBe(415);
  });
});
