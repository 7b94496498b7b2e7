/**
 * The web UI served at `/`: index.html with its Content-Security-Policy and no caching, hashed
 * assets cached for a year, the SPA fallback for client routes, and never for any spelling of
 * /api/... or /v1/... (percent-encoded, mixed case, dot segments, double slashes): those stay
 * JSON 404s. GET /api/ui-config answers without a key even when auth is on.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createAuthenticator } from "@crux/auth";
import type { Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isClientRoute } from "../src/ui.ts";
import { buildTestApp, PROJECT } from "./harness.ts";

type App = Awaited<ReturnType<typeof buildTestApp>>;

const indexHtml = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';

const apiSpellings = [
  "/api/v1/nope",
  "/API/v1/traces",
  "/Api/V1/traces",
  "/%61pi/v1/traces",
  "/%2561pi/v1/traces",
  "/api%2Fv1/traces",
  "/%2Fapi/v1/traces",
  "//api/v1/traces",
  "/./api/v1/traces",
  "/runs/../api/v1/traces",
  "/runs/%2e%2e/api/v1/traces",
  "/api",
  "/api/",
  "/API",
  "/v1/traces",
  "/V1/traces",
  "/%761/traces",
  "/v1",
  "/assets/missing.js",
  "/api/docs/nope",
  "/runs%2F..%2Fapi",
  "/runs/..%2Fapi%2Fv1",
  "/runs\\..\\api",
];

describe.each(testDatabases())("the web UI on $name", ({ create }) => {
  let database: Database;
  let app: App;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "crux-ui-"));
    mkdirSync(path.join(root, "assets"));
    writeFileSync(path.join(root, "index.html"), indexHtml);
    writeFileSync(path.join(root, "assets", "index-abc123.js"), "console.log(1)");
    database = await create();
    app = await buildTestApp(database, {
      authenticate: createAuthenticator({ database, required: true, defaultProjectId: PROJECT }),
      ui: { root, authRequired: true, otlpHttpPort: () => 4318 },
    });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("serves index.html at / and at client routes with a CSP allowing no inline script, never cached", async () => {
    for (const url of ["/", "/runs", "/runs/0123456789abcdef0123456789abcdef?span=0123456789abcdef", "/failure-modes", "/alerts/", "/experiments?id=e1"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(indexHtml);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      const csp = String(res.headers["content-security-policy"]);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("unsafe-eval");
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("caches hashed assets for a year", async () => {
    const res = await app.inject({ method: "GET", url: "/assets/index-abc123.js" });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("console.log(1)");
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("never answers a spelling of /api/... or /v1/... with the page", async () => {
    for (const url of apiSpellings) {
      for (const method of ["GET", "HEAD"] as const) {
        const res = await app.inject({ method, url });
        // The router decodes some of these to a real route (its own answer); none is the page.
        expect(String(res.headers["content-type"] ?? ""), `${method} ${url}`).not.toMatch(/html/);
        if (method === "GET") expect(res.body, url).not.toContain('<div id="root">');
      }
    }
    const json = await app.inject({ method: "GET", url: "/%61pi/v1/nope" });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ code: "not_found" });
    // The real API still asks for its key.
    expect((await app.inject({ method: "GET", url: "/api/v1/traces" })).statusCode).toBe(401);
  });

  it("answers /api/ui-config without a key", async () => {
    const res = await app.inject({ method: "GET", url: "/api/ui-config" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ authRequired: true, otlpHttpPort: 4318 });
  });

  it("does not serve the page for writes", async () => {
    expect((await app.inject({ method: "POST", url: "/runs" })).statusCode).toBe(404);
  });

  it("says how to build the UI when it is not built", async () => {
    const bare = await buildTestApp(database, { ui: { root: path.join(root, "missing"), authRequired: false } });
    const res = await bare.inject({ method: "GET", url: "/runs" });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain("pnpm@10.34.8 install");
    await bare.close();
  });
});

describe("isClientRoute", () => {
  it("accepts the UI's pages and refuses any other path, encoded and dotted ones included", () => {
    expect(["/", "/runs", "/runs/abc", "/failure-modes", "/config/"].every(isClientRoute)).toBe(true);
    expect(apiSpellings.some(isClientRoute)).toBe(false);
    expect(["/Runs", "/runs.json", "/metrics", "/healthz", "/readyz", "/livez", "/docs", "/nope", "/api-docs"].some(isClientRoute)).toBe(false);
  });
});
