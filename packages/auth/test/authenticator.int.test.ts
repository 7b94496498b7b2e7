/** API-key authentication against a real database on both backends: hashing, caching, revocation. */
import { createApiKey, ensureProject, revokeApiKey } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { apiKeyFromHeaders, createAuthenticator } from "../src/index.ts";

describe("apiKeyFromHeaders", () => {
  it("reads a Bearer token or x-api-key, Bearer first", () => {
    const headers = (h: Record<string, string>) => (n: string) => h[n];
    expect(apiKeyFromHeaders(headers({ authorization: "Bearer  k1 " }))).toBe("k1");
    expect(apiKeyFromHeaders(headers({ authorization: "bearer k1", "x-api-key": "k2" }))).toBe("k1");
    expect(apiKeyFromHeaders(headers({ "x-api-key": " k2" }))).toBe("k2");
    expect(apiKeyFromHeaders(headers({ authorization: "Basic abc" }))).toBeNull();
    expect(apiKeyFromHeaders(headers({}))).toBeNull();
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
      expect(await authenticate(key)).toEqual({ ok: true, projectId: "team-a" });
      expect(await authenticate(null)).toMatchObject({ ok: false, reason: expect.stringMatching(/missing API key/) });
      expect(await authenticate("crux_wrong")).toMatchObject({ ok: false, reason: "invalid or revoked API key" });

      expect(await revokeApiKey(database, id)).toBe(true);
      expect(await authenticate(key)).toEqual({ ok: true, projectId: "team-a" }); // still cached
      now += 1_001;
      expect(await authenticate(key)).toMatchObject({ ok: false, reason: "invalid or revoked API key" });
    } finally {
      await database.close();
    }
  });

  it("with auth off every caller is in the default project, without a key", async () => {
    const database = await create();
    try {
      const authenticate = createAuthenticator({ database, required: false, defaultProjectId: "default" });
      expect(await authenticate(null)).toEqual({ ok: true, projectId: "default" });
    } finally {
      await database.close();
    }
  });
});
