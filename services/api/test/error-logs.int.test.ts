/**
 * Unexpected failures are logged as one bounded line (error class, SQLSTATE,
 * route, request id, a short message) and never carry SQL text, bound
 * parameters or a stack. The failure here is real: the prices table is
 * dropped under the running API, so drizzle throws "Failed query: <sql>
 * params: <values>" with the driver error as its cause.
 */
import type { Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, capturedLogger, execRaw } from "./harness.ts";

describe.each(testDatabases())("error logs on $name", ({ create }) => {
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

  it("a 500 logs one bounded line without SQL text, parameters or stack; the client gets no detail", async () => {
    await execRaw(database, "DROP TABLE prices");
    const marker = "model-marker-7f3a9c";
    const res = await app.inject({ method: "POST", url: "/api/v1/prices", payload: { model: marker, inputPerMTok: 1.234567, outputPerMTok: 2 } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ code: "internal", message: "internal error" });

    const errorLines = captured.lines.filter((l) => l.includes("unhandled API error"));
    expect(errorLines).toHaveLength(1);
    const entry = JSON.parse(errorLines[0]!);
    expect(entry).toMatchObject({
      level: 50,
      errorClass: expect.any(String),
      sqlState: "42P01",
      method: "POST",
      route: "/api/v1/prices",
      reqId: expect.any(String),
    });
    expect(entry.error).toMatch(/relation "prices" does not exist/);
    expect(errorLines[0]!.length).toBeLessThan(1_000);
    const everything = captured.text();
    expect(everything).not.toMatch(/insert into/i);
    expect(everything).not.toMatch(/Failed query/);
    expect(everything).not.toMatch(/params:/);
    expect(everything).not.toContain(marker);
    expect(everything).not.toContain("1.234567");
    expect(everything).not.toMatch(/\bat .*\.(ts|js):\d+/); // stack frames
  });
});
