/**
 * Input the API never issued or does not take is refused whole, saying
 * what is wrong: cursors it did not hand out (hand-made keys, SQL text,
 * Postgres special dates, a year past 9999), an alert rule on a mode that is
 * not a MAST mode, a body on an endpoint that takes none, a non-JSON body on
 * a JSON endpoint (415 naming application/json), and outbound targets the
 * operator does not allow (webhook allowPrivateTargets, a judge base URL on
 * a private literal address).
 */
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp } from "./harness.ts";

type App = Awaited<ReturnType<typeof buildTestApp>>;

const cursor = (key: unknown) => Buffer.from(JSON.stringify(key), "utf8").toString("base64url");

const forged = [
  cursor(["x"]),
  cursor(["' OR 1=1 --"]),
  cursor(["infinity", "5b0a2c3e-8d4f-4a6b-9c1d-2e3f4a5b6c7d"]),
  cursor(["epoch", "5b0a2c3e-8d4f-4a6b-9c1d-2e3f4a5b6c7d"]),
  cursor(["99999-01-01T00:00:00.000000Z", "5b0a2c3e-8d4f-4a6b-9c1d-2e3f4a5b6c7d"]),
  cursor(["2026-01-01T00:00:00.000000Z", "' OR 1=1 --"]),
  cursor([253_402_300_800_000 * 10, 1]),
  cursor(["x", "y"]),
  cursor([1, "agent"]).slice(0, -2),
];

describe.each(testDatabases())("strict input on $name", ({ create }) => {
  let app: App;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const database = await create();
    app = await buildTestApp(database, { privateTargets: "loopback" });
    close = async () => {
      await app.close();
      await database.close();
    };
  });
  afterAll(() => close());

  it.each(["/webhooks", "/alert-rules", "/alerts", "/judge-calls", "/traces", "/metrics/agents", "/metrics/failure-modes?groupBy=agent"])(
    "GET %s refuses every cursor it did not issue with invalid_cursor",
    async (path) => {
      for (const c of forged) {
        const res = await app.inject({ method: "GET", url: `/api/v1${path}${path.includes("?") ? "&" : "?"}cursor=${c}` });
        expect(res.statusCode, `${path} ${Buffer.from(c, "base64url").toString()}`).toBe(400);
        expect(res.json().code, `${path} ${Buffer.from(c, "base64url").toString()}`).toBe("invalid_cursor");
      }
    },
  );

  it("an alert rule on a mode outside the MAST list is refused, naming the list", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/v1/alert-rules",
      payload: {
        name: "never",
        metric: { kind: "failure_mode_rate", mode: "FM-9.9" },
        condition: { kind: "threshold", op: "above", value: 0.1 },
        windowMs: 3_600_000,
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/MAST modes: FM-1\.1/);
  });

  it("a body on an endpoint that takes none is refused, not ignored", async () => {
    const res = await app.inject({ method: "POST", url: "/api/v1/traces/0af7651916cd43dd8448eb211c80319c/judge", payload: { surprise: true } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "invalid_request", message: expect.stringMatching(/takes no request body/) });
    const del = await app.inject({
      method: "DELETE",
      url: "/api/v1/webhooks/5b0a2c3e-8d4f-4a6b-9c1d-2e3f4a5b6c7d",
      payload: "x",
      headers: { "content-type": "text/plain" },
    });
    expect(del.statusCode).toBe(400);
  });

  it("text/plain (or any non-JSON body) on a JSON endpoint is 415 naming application/json", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "text/html; charset=utf-8"]) {
      const res = await app.inject({ method: "PUT", url: "/api/v1/judge-settings", payload: "{}", headers: { "content-type": type } });
      expect(res.statusCode, type).toBe(415);
      expect(res.json()).toMatchObject({ code: "unsupported_media_type", message: expect.stringContaining("application/json") });
    }
  });

  it("outbound targets: a literal address beyond the operator's allowance is refused on write; loopback is allowed here", async () => {
    const judge = (baseUrl: string) =>
      app.inject({ method: "PUT", url: "/api/v1/judge-settings", payload: { provider: "openai", model: "gpt-4.1-mini", baseUrl } });
    for (const host of ["10.0.0.1", "169.254.169.254", "[::ffff:10.0.0.1]", "[64:ff9b::a00:1]", "224.0.0.1", "198.18.0.1"]) {
      const res = await judge(`http://${host}:8000/v1`);
      expect(res.statusCode, host).toBe(400);
      expect(res.json().message).toMatch(/^baseUrl: a (private|reserved) address/);
    }
    expect((await judge("http://127.0.0.1:11434/v1")).statusCode).toBe(200);

    const hook = (url: string, allowPrivateTargets: boolean) => app.inject({ method: "POST", url: "/api/v1/webhooks", payload: { url, allowPrivateTargets } });
    expect((await hook("http://127.0.0.1:9000/x", false)).statusCode).toBe(400);
    expect((await hook("http://10.0.0.1:9000/x", true)).statusCode).toBe(400);
    expect((await hook("http://127.0.0.1:9000/x", true)).statusCode).toBe(201);
  });
});

describe.each(testDatabases())("with no private targets allowed (the production default) on $name", ({ create }) => {
  it("allowPrivateTargets is refused: only the operator can allow private targets", async () => {
    const database = await create();
    const app = await buildTestApp(database);
    try {
      const res = await app.inject({ method: "POST", url: "/api/v1/webhooks", payload: { url: "http://127.0.0.1:9000/x", allowPrivateTargets: true } });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/CRUX_ALLOW_PRIVATE_TARGETS=none/);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
