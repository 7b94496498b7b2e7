/**
 * Bad input is a 400 with a message saying what is wrong, decided by the zod
 * schemas before any query runs; never a 500 from Postgres (which cannot store
 * or compare U+0000, nor a nanosecond time past 2262, nor a 20-digit int8).
 * Every API route rejects unknown query parameters (a typo such as `servce=`
 * used to be ignored and return everything).
 */
import type { Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, buildTestApp, storeTraceSpan } from "./harness.ts";
import { hexTraceId } from "./score-records.ts";

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

describe.each(testDatabases())("request validation on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const call = async (url: string, method: "GET" | "POST" | "PUT" = "GET", payload?: object) => {
    const res = await app.inject({ method, url, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json() as { code: string; message: string } };
  };
  const expect400 = async (url: string, message: RegExp, method: "GET" | "POST" | "PUT" = "GET", payload?: object) => {
    const res = await call(url, method, payload);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(400);
    expect(res.body.message, `${method} ${url}`).toMatch(message);
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    await storeTraceSpan(database, 1, NOW - HOUR);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("every API route answers 400 naming an unknown query parameter", async () => {
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const fill = (p: string) => p.replace("{traceId}", hexTraceId(1)).replace("{id}", "00000000-0000-4000-8000-000000000000");
    const routes: { method: "GET" | "POST" | "PUT"; url: string; payload?: object }[] = Object.keys(doc.paths)
      .filter((p) => p.startsWith("/api/v1/") && doc.paths[p]!.get)
      .map((p) => ({ method: "GET", url: fill(p) }));
    routes.push(
      { method: "POST", url: `/api/v1/traces/${hexTraceId(1)}/outcome`, payload: { success: true } },
      { method: "POST", url: "/api/v1/prices", payload: { model: "m", inputPerMTok: 1, outputPerMTok: 1 } },
      { method: "PUT", url: "/api/v1/settings", payload: { coordinationWeights: null, repetitionK: null } },
    );
    expect(routes.length).toBeGreaterThan(20);
    for (const r of routes) await expect400(`${r.url}?servce=svc`, /Unrecognized key: "servce"/, r.method, r.payload);
    // Known parameters still pass next to it being absent.
    expect((await call("/api/v1/traces?service=svc&limit=5")).status).toBe(200);
    expect((await call("/api/v1/metrics/failure-modes?service=svc&groupBy=agent&limit=5")).status).toBe(200);
  });

  it("a NUL byte in service or agent is 400, on the trace list and every metrics endpoint", async () => {
    for (const path of [
      "/api/v1/traces",
      "/api/v1/metrics/failure-modes",
      "/api/v1/metrics/agents",
      "/api/v1/metrics/cost-multiplier",
      "/api/v1/metrics/success",
    ]) {
      await expect400(`${path}?service=a%00b`, /service: must not contain a NUL character/);
      await expect400(`${path}?agent=%00`, /agent: must not contain a NUL character/);
    }
  });

  it("a cursor with a 20-digit number, a NUL, a foreign shape or a huge position is 400 invalid_cursor", async () => {
    const bad = [
      cursorOf(["99999999999999999999", hexTraceId(1)]),
      cursorOf(["-99999999999999999999", hexTraceId(1)]),
      cursorOf(["1", "a\u0000b"]),
      cursorOf(["1", 5]),
    ];
    for (const c of bad) {
      const res = await call(`/api/v1/traces?cursor=${c}`);
      expect(res.status, c).toBe(400);
      expect(res.body.code).toBe("invalid_cursor");
    }
    const perEndpoint: [string, unknown][] = [
      [`/api/v1/traces/${hexTraceId(1)}/findings`, [1e300]],
      [`/api/v1/traces/${hexTraceId(1)}/findings`, [99999999999]],
      [`/api/v1/traces/${hexTraceId(1)}/findings`, [1.5]],
      ["/api/v1/metrics/agents", [10, "a\u0000"]],
      ["/api/v1/metrics/failure-modes?groupBy=agent", ["a\u0000", "FM-1.1"]],
      ["/api/v1/metrics/cost-multiplier", ["task\u0000"]],
    ];
    for (const [path, key] of perEndpoint) {
      const res = await call(`${path}${path.includes("?") ? "&" : "?"}cursor=${cursorOf(key)}`);
      expect(res.status, `${path} ${JSON.stringify(key)}`).toBe(400);
      expect(res.body.code).toBe("invalid_cursor");
    }
    await expect400("/api/v1/traces?cursor=not%20base64!", /cursor: is not a cursor this API returned/);
  });

  it("a window from year 1 to 9999 (outside int64 nanoseconds) is 400 saying the range", async () => {
    for (const path of [
      "/api/v1/traces",
      "/api/v1/metrics/failure-modes",
      "/api/v1/metrics/agents",
      "/api/v1/metrics/cost-multiplier",
      "/api/v1/metrics/success",
    ]) {
      await expect400(`${path}?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z`, /from: must be between 1970-01-01T00:00:00Z and 2262-04-11T23:47:16Z/);
      await expect400(`${path}?to=2263-01-01T00:00:00Z`, /to: must be between/);
    }
    // The widest allowed window answers (no bucket: nothing to count).
    expect((await call("/api/v1/metrics/agents?from=1970-01-01T00:00:00Z&to=2262-04-11T00:00:00Z")).status).toBe(200);
  });

  it("bad ids, limits, numbers and enums are 400", async () => {
    await expect400("/api/v1/traces/xyz", /traceId: must be 32 hex characters/);
    await expect400(`/api/v1/traces/${"g".repeat(32)}/scores`, /must be 32 hex characters/);
    await expect400("/api/v1/prices/not-a-uuid", /id/);
    for (const limit of ["0", "-1", "501", "1.5", "NaN", "1e400", "abc", "99999999999999999999"]) await expect400(`/api/v1/traces?limit=${limit}`, /limit/);
    await expect400(`/api/v1/traces/${hexTraceId(1)}/findings?limit=NaN`, /limit/);
    for (const confidence of ["NaN", "1", "0", "Infinity"]) await expect400(`/api/v1/metrics/success?confidence=${confidence}`, /confidence/);
    await expect400("/api/v1/metrics/agents?bucket=2m", /bucket/);
    await expect400("/api/v1/metrics/failure-modes?groupBy=nope", /groupBy/);
    await expect400("/api/v1/traces?hasError=yes", /hasError/);
    await expect400("/api/v1/traces?from=yesterday", /from: must be an ISO 8601 date-time/);
    await expect400("/api/v1/traces?service=", /service/);
    await expect400(`/api/v1/traces?service=${"x".repeat(600)}`, /service: must be at most 512 characters/);
  });

  it("bodies: a NUL in a name, an expression or inside a JSON Schema is 400 (nothing stored)", async () => {
    await expect400("/api/v1/prices", /model: must not contain a NUL/, "POST", { model: "gpt\u0000x", inputPerMTok: 1, outputPerMTok: 1 });
    await expect400("/api/v1/agent-contracts", /agent: must not contain a NUL/, "POST", { agent: "a\u0000", role: "r" });
    await expect400("/api/v1/handoff-contracts", /jsonSchema: must not contain a NUL/, "POST", {
      sender: "a",
      receiver: "b",
      jsonSchema: { type: "object", properties: { "k\u0000": { type: "string" } } },
    });
    await expect400("/api/v1/handoff-contracts", /requiredConstraints/, "POST", { sender: "a", receiver: "b", requiredConstraints: ["x\u0000"] });
    await expect400("/api/v1/milestone-sets", /check: must not contain a NUL/, "POST", {
      name: "s",
      milestones: [{ id: "m", weight: 1, check: "true\u0000" }],
    });
    await expect400(`/api/v1/traces/${hexTraceId(1)}/outcome`, /taskId: must not contain a NUL/, "POST", { taskId: "t\u0000" });
    // crux.outcome.score is a graded outcome in 0..1 (docs/instrumenting.md, run tags).
    await expect400(`/api/v1/traces/${hexTraceId(1)}/outcome`, /score/, "POST", { score: 1.5 });
    await expect400(`/api/v1/traces/${hexTraceId(1)}/outcome`, /score/, "POST", { score: -0.1 });
    // 5,000 levels of JSON Schema: Ajv recursed per level and overflowed the stack (a 500).
    for (const depth of [65, 5_000]) {
      const deep = await app.inject({
        method: "POST",
        url: "/api/v1/handoff-contracts",
        headers: { "content-type": "application/json" },
        payload: `{"sender":"a","receiver":"b","jsonSchema":${'{"not":'.repeat(depth)}{}${"}".repeat(depth)}}`,
      });
      expect(deep.statusCode).toBe(400);
      expect(deep.json().message).toMatch(/jsonSchema: must not be nested deeper than 64 levels/);
    }
    expect((await call("/api/v1/prices")).body).toMatchObject({ items: expect.not.arrayContaining([expect.objectContaining({ source: "project" })]) });
    expect((await call("/api/v1/handoff-contracts")).body).toEqual({ items: [] });
  });

  it("no value of any query parameter or path id gives a 500", async () => {
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };
    const nasty = [
      "%00",
      "a%00",
      "%FF",
      "%ED%A0%80",
      "%F0%9F%98%80",
      "-1",
      "0",
      "1e400",
      "NaN",
      "-Infinity",
      "9".repeat(30),
      "x".repeat(5000),
      "%5B%5D",
      "true",
      "null",
      " ",
      "1.7976931348623157e309",
      "0x1F",
    ];
    const ids = ["%00", "%FF", "x".repeat(300), "0".repeat(33), "..%2F..", "%20"];
    let requests = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith("/api/v1/") || !methods.get) continue;
      const params = (methods.get.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      const filled = path.replace("{traceId}", hexTraceId(1)).replace("{id}", "00000000-0000-4000-8000-000000000000");
      for (const name of params) {
        for (const value of nasty) {
          const res = await app.inject({ method: "GET", url: `${filled}?${name}=${value}` });
          requests++;
          expect(res.statusCode, `GET ${filled}?${name}=${value.slice(0, 40)}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        }
      }
      if (path.includes("{")) {
        for (const id of ids) {
          const url = path.replace("{traceId}", id).replace("{id}", id);
          const res = await app.inject({ method: "GET", url });
          requests++;
          expect(res.statusCode, `GET ${url.slice(0, 80)}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        }
      }
    }
    expect(requests).toBeGreaterThan(200);
  });
});
