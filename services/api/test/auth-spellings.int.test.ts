/**
 * No spelling of an API path reaches a handler without a key. Every route the
 * app registered is sent, keyless, in every spelling that a router or a proxy
 * might read differently from the authentication: a percent-encoded letter in
 * each segment, the segment upper-cased, matrix parameters on it, a doubled
 * slash, dot segments and an encoded slash before it, and trailing slashes.
 * What may answer: the authentication (401), the refusal of a non-canonical
 * path (400) or the not-found handler (404 "no route ..."); never a handler.
 */
import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import { createAuthenticator } from "@crux/auth";
import { ensureProject } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApiApp } from "../src/app.ts";

type App = Awaited<ReturnType<typeof buildApiApp>>;
type Answer = { statusCode: number; body: string };

/**
 * Over a real socket, the path sent byte for byte: app.inject resolves dot segments through the URL
 * parser, so it would never send what an attacker sends.
 */
function send(port: number, agent: Agent, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ statusCode: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const UUID = "5b0a2c3e-8d4f-4a6b-9c1d-2e3f4a5b6c7d";

/** A concrete path for a route pattern: hex for trace ids, a uuid for every other id. */
function concrete(url: string): string {
  return url.replace(/:traceId/g, TRACE_ID).replace(/:[A-Za-z]+/g, UUID);
}

function encodeFirstLetter(segment: string): string {
  const i = segment.search(/[A-Za-z]/);
  if (i === -1) return segment;
  return `${segment.slice(0, i)}%${segment.charCodeAt(i).toString(16).padStart(2, "0")}${segment.slice(i + 1)}`;
}

/** Every spelling of `path` the test sends, each with what it is (for the failure message). */
function spellings(path: string): Array<{ what: string; path: string }> {
  const segments = path.split("/").slice(1);
  const join = (parts: string[]) => `/${parts.join("/")}`;
  const out: Array<{ what: string; path: string }> = [{ what: "as registered", path }];
  segments.forEach((segment, i) => {
    const replace = (s: string) => join(segments.map((x, j) => (j === i ? s : x)));
    const head = segments
      .slice(0, i)
      .map((x) => `/${x}`)
      .join("");
    const rest = segments.slice(i).join("/");
    const before = (prefix: string) => `${head}/${prefix}${rest}`;
    out.push({ what: `segment ${i} with a percent-encoded letter`, path: replace(encodeFirstLetter(segment)) });
    out.push({ what: `segment ${i} fully percent-encoded`, path: replace([...segment].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join("")) });
    out.push({ what: `segment ${i} upper-cased`, path: replace(segment.toUpperCase()) });
    out.push({ what: `segment ${i} with matrix parameters`, path: replace(`${segment};x=1`) });
    out.push({ what: `segment ${i} with an empty matrix parameter`, path: replace(`${segment};`) });
    out.push({ what: `doubled slash before segment ${i}`, path: before("/") });
    out.push({ what: `dot segment before segment ${i}`, path: before("./") });
    out.push({ what: `encoded dot segment before segment ${i}`, path: before("%2e/") });
    out.push({ what: `parent segment before segment ${i}`, path: before("x/../") });
    out.push({ what: `encoded parent segment before segment ${i}`, path: before("x/%2E%2e/") });
    if (i > 0) {
      out.push({ what: `encoded slash before segment ${i}`, path: `${head}%2f${rest}` });
      out.push({ what: `encoded backslash before segment ${i}`, path: `${head}%5C${rest}` });
      out.push({ what: `backslash before segment ${i}`, path: `${head}\\${rest}` });
    }
  });
  out.push({ what: "trailing slash", path: `${path}/` });
  out.push({ what: "trailing doubled slash", path: `${path}//` });
  out.push({ what: "trailing dot segment", path: `${path}/.` });
  out.push({ what: "upper-cased", path: path.toUpperCase() });
  out.push({ what: "encoded, with a query", path: `/${encodeFirstLetter(path.slice(1))}?limit=1` });
  return out;
}

describe.each(testDatabases())("keyless requests in every spelling on $name", ({ create }) => {
  let app: App;
  let close: () => Promise<void>;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  beforeAll(async () => {
    const database = await create();
    await ensureProject(database, "default", "default");
    app = await buildApiApp({ database, authenticate: createAuthenticator({ database, required: true, defaultProjectId: "default" }) });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
    close = async () => {
      agent.destroy();
      await app.close();
      await database.close();
    };
  });
  afterAll(() => close());

  test("the enumeration covers the API: every /api/v1 route, reads and writes", () => {
    const routes = app.apiRoutes();
    expect(routes.length).toBeGreaterThan(40);
    expect(routes).toContainEqual({ method: "POST", url: "/api/v1/webhooks", access: "write" });
    expect(routes).toContainEqual({ method: "PUT", url: "/api/v1/judge-settings", access: "write" });
    expect(routes).toContainEqual({ method: "GET", url: "/api/v1/traces/:traceId", access: "read" });
    expect(routes.every((r) => r.url.startsWith("/api/v1/"))).toBe(true);
  });

  test("no handler runs for any route in any spelling without a key", async () => {
    const reached: string[] = [];
    let sent = 0;
    for (const route of app.apiRoutes()) {
      for (const spelling of spellings(concrete(route.url))) {
        const withBody = route.method === "POST" || route.method === "PUT" || route.method === "PATCH";
        const res = await send(port, agent, route.method, spelling.path, withBody ? "{}" : undefined);
        sent++;
        const body = route.method === "HEAD" ? null : (JSON.parse(res.body) as { code?: string; message?: string });
        const refused =
          (res.statusCode === 401 && (body === null || body.code === "unauthenticated")) ||
          (res.statusCode === 400 && (body === null || /plain form/.test(body.message ?? ""))) ||
          (res.statusCode === 404 && (body === null || /^no route /.test(body.message ?? "")));
        if (!refused) reached.push(`${route.method} ${spelling.path} (${spelling.what}): ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(reached).toEqual([]);
  });

  test("the spellings that route to the handler are authenticated, not merely unrouted", async () => {
    for (const path of ["/%61pi/v1/webhooks", "/api/%761/webhooks", "/%61%70%69/%76%31/traces", "/api/v1/%77ebhooks"]) {
      const res = await app.inject({ method: "GET", url: path });
      expect(res.statusCode, path).toBe(401);
      expect(res.json().code).toBe("unauthenticated");
    }
    const write = await app.inject({ method: "POST", url: "/%61pi/v1/webhooks", payload: { url: "http://127.0.0.1:1/x", allowPrivateTargets: true } });
    expect(write.statusCode).toBe(401);
    const judge = await app.inject({ method: "PUT", url: "/%61pi/v1/judge-settings", payload: {} });
    expect(judge.statusCode).toBe(401);
  });

  test("paths that decode into another route are refused before routing, with what is wrong", async () => {
    for (const [path, why] of [
      ["/api/v1/traces%2f" + TRACE_ID, /encoded \//],
      ["/api/v1//webhooks", /empty path segment/],
      ["/api/v1/x/../webhooks", /dot segment/],
      ["/api/v1/webhooks;jsessionid=1", /matrix parameters/],
      ["/api/v1/traces/%E0%A4%A", /malformed percent-encoding/],
    ] as const) {
      const res = await send(port, agent, "GET", path);
      expect(res.statusCode, path).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: "invalid_request", message: expect.stringMatching(why) });
    }
  });

  test("the public pages outside /api/v1 still answer without a key", async () => {
    expect((await app.inject({ method: "GET", url: "/livez" })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: "/api/docs/json" })).statusCode).toBe(200);
  });
});
