import { createHash } from "node:crypto";
import { testDatabases } from "@crux/testkit";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countApiKeys, createApiKey, ensureProject, findProjectByApiKey, revokeApiKey, schema, type Database } from "../src/index.ts";
import { projectId } from "./fixtures.ts";

describe.each(testDatabases())("projects and API keys on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  it("creates a project once and keeps its first name", async () => {
    const p = projectId();
    await ensureProject(database, p, "first");
    await ensureProject(database, p, "second");
    const rows = await database.db.select().from(schema.projects).where(eq(schema.projects.id, p));
    expect(rows.map((r) => r.name)).toEqual(["first"]);
  });

  it("finds the project of a key, stores only its hash, and forgets revoked keys", async () => {
    const p = projectId();
    await ensureProject(database, p, "keys");
    const before = await countApiKeys(database);
    const { id, key } = await createApiKey(database, p, "ci");
    const other = await createApiKey(database, p, "laptop");
    expect(key).toMatch(/^crux_[A-Za-z0-9_-]{43}$/);
    expect(other.key).not.toBe(key);
    expect(await countApiKeys(database)).toBe(before + 2);

    expect(await findProjectByApiKey(database, key)).toBe(p);
    expect(await findProjectByApiKey(database, `${key}x`)).toBeNull();
    expect(await findProjectByApiKey(database, "crux_unknown")).toBeNull();

    const [row] = await database.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, id));
    expect(row!.keyHash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(row!.keyPrefix).toBe(key.slice(0, 8));
    // Neither the key nor its random part appears anywhere in the table.
    const dump = await database.db.execute(sql`select string_agg(t::text, '|') as everything from api_keys t`);
    const everything = String((dump as unknown as { rows: { everything: string }[] }).rows[0]!.everything);
    expect(everything).toContain(row!.keyHash);
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(key.slice("crux_".length));

    expect(await revokeApiKey(database, id)).toBe(true);
    expect(await revokeApiKey(database, id)).toBe(false);
    expect(await findProjectByApiKey(database, key)).toBeNull();
    expect(await findProjectByApiKey(database, other.key)).toBe(p);
    // Revoked keys still count: a bootstrap must not mint a new key after a revocation.
    expect(await countApiKeys(database)).toBe(before + 2);
  });

  it("refuses a key for a project that does not exist", async () => {
    await expect(createApiKey(database, projectId(), "orphan")).rejects.toThrow();
  });
});
