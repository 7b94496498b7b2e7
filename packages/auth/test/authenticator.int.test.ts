/** API-key authentication against a real database on both backends: hashing, caching, revocation, scopes, last use. */
import { createApiKey, ensureProject, listApiKeys, revokeApiKey } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { apiAccessOf, apiKeyFromHeaders, createAuthenticator, scopeRefusal } from "../src/index.ts";

describe("apiKeyFromHeaders", () => {
  const headers = (h: Record<string, string>) => (n: string) => h[n];

  it("reads a Bearer token or x-api-key, Bearer first", () => {
    expect(apiKeyFromHeaders(headers({ authorization: "Bearer  k1 " }))).toBe("k1");
    expect(apiKeyFromHeaders(headers({ authorization: "bearer k1", "x-api-key": "k2" }))).toBe("k1");
    expect(apiKeyFromHeaders(headers({ "x-api-key": " k2" }))).toBe("k2");
    expect(apiKeyFromHeaders(headers({ authorization: "Basic abc", "x-api-key": "k2" }))).toBe("k2");
    expect(apiKeyFromHeaders(headers({}))).toBeNull();
  });

  it("says what is wrong with an Authorization header that carries no key it reads", () => {
    expect(apiKeyFromHeaders(headers({ authorization: "crux_abc" }))).toEqual({
      unreadable: "the Authorization header has no scheme: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
    });
    expect(apiKeyFromHeaders(headers({ authorization: "Bearer " }))).toEqual({
      unreadable: "the Authorization header has the Bearer scheme but no key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
    });
    expect(apiKeyFromHeaders(headers({ authorization: "Basic abc" }))).toEqual({
      unreadable: "the Authorization scheme 'Basic' is not supported: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
    });
  });
});

describe("scopes", () => {
  it("ingest keys only send traces, read keys only read the API, full keys do all", () => {
    const allowed = (scope: "ingest" | "read" | "full") => (["ingest", "read", "write"] as const).filter((a) => scopeRefusal(scope, a) === null);
    expect(allowed("ingest")).toEqual(["ingest"]);
    expect(allowed("read")).toEqual(["read"]);
    expect(allowed("full")).toEqual(["ingest", "read", "write"]);
    expect(scopeRefusal("ingest", "read")).toBe("this API key (scope 'ingest') may only send traces, not read the API: use a key with scope 'read' or 'full'");
    expect(scopeRefusal("read", "write")).toMatch(/may only read the API, not change anything through the API: use a key with scope 'full'$/);
  });

  it("API reads are GET and HEAD; every other method writes", () => {
    expect(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].map(apiAccessOf)).toEqual(["read", "read", "write", "write", "write", "write"]);
  });
});

describe.each(testDatabases())("createAuthenticator on $name", ({ create }) => {
  it("accepts a valid key for its project, refuses missing and wrong keys, and stops a revoked key after the cache TTL", async () => {
    const database = await create();
    try {
      await ensureProject(database, "team-a", "Team A");
      const { id, key } = await createApiKey(database, "team-a", "ci");
      let now = 0;
      const authenticate = createAuthenticator({ database, required: true, defaultProjectId: "default", cacheTtlMs: 1_000, now: () => now });
      expect(await authenticate(key, "ingest")).toEqual({ ok: true, projectId: "team-a" });
      expect(await authenticate(null, "read")).toMatchObject({ ok: false, failure: "unauthenticated", reason: expect.stringMatching(/^missing API key/) });
      expect(await authenticate({ unreadable: "no scheme" }, "read")).toEqual({ ok: false, failure: "unauthenticated", reason: "no scheme" });
      expect(await authenticate("crux_wrong", "ingest")).toEqual({ ok: false, failure: "unauthenticated", reason: "invalid or revoked API key" });

      expect(await revokeApiKey(database, id)).toBe(true);
      expect(await authenticate(key, "ingest")).toEqual({ ok: true, projectId: "team-a" }); // still cached
      now += 1_001;
      expect(await authenticate(key, "ingest")).toMatchObject({ ok: false, failure: "unauthenticated", reason: "invalid or revoked API key" });
    } finally {
      await database.close();
    }
  });

  it("refuses what a key's scope does not allow, as forbidden", async () => {
    const database = await create();
    try {
      await ensureProject(database, "team-s", "Team S");
      const tracer = await createApiKey(database, "team-s", "tracer", "ingest");
      const dashboard = await createApiKey(database, "team-s", "dashboard", "read");
      const authenticate = createAuthenticator({ database, required: true, defaultProjectId: "default" });
      expect(await authenticate(tracer.key, "ingest")).toEqual({ ok: true, projectId: "team-s" });
      expect(await authenticate(tracer.key, "read")).toMatchObject({ ok: false, failure: "forbidden" });
      expect(await authenticate(dashboard.key, "read")).toEqual({ ok: true, projectId: "team-s" });
      expect(await authenticate(dashboard.key, "write")).toMatchObject({ ok: false, failure: "forbidden" });
      expect(await authenticate(dashboard.key, "ingest")).toMatchObject({ ok: false, failure: "forbidden" });
    } finally {
      await database.close();
    }
  });

  it("records a key's last use at most once per interval, not per request", async () => {
    const database = await create();
    try {
      await ensureProject(database, "team-t", "Team T");
      const { key } = await createApiKey(database, "team-t", "ci");
      let now = Date.parse("2026-05-01T10:00:00Z");
      const authenticate = createAuthenticator({ database, required: true, defaultProjectId: "default", touchIntervalMs: 60_000, now: () => now });
      const lastUsed = async () => (await listApiKeys(database, "team-t"))[0]!.lastUsedAt?.toISOString() ?? null;
      expect(await lastUsed()).toBeNull();
      await authenticate(key, "ingest");
      // The write follows the answer, off the request's path.
      await expect.poll(lastUsed).toBe("2026-05-01T10:00:00.000Z");
      now += 30_000;
      await authenticate(key, "ingest");
      await new Promise((r) => setTimeout(r, 300));
      expect(await lastUsed()).toBe("2026-05-01T10:00:00.000Z"); // within the minute: no write
      now += 30_000;
      await authenticate(key, "ingest");
      await expect.poll(lastUsed).toBe("2026-05-01T10:01:00.000Z");
    } finally {
      await database.close();
    }
  });

  it("with auth off every caller is in the default project, without a key", async () => {
    const database = await create();
    try {
      const authenticate = createAuthenticator({ database, required: false, defaultProjectId: "default" });
      expect(await authenticate(null, "write")).toEqual({ ok: true, projectId: "default" });
    } finally {
      await database.close();
    }
  });
});
