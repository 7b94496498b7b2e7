import { createHash } from "node:crypto";
import { testDatabases } from "@crux/testkit";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countApiKeys,
  createApiKey,
  ensureProject,
  findActiveApiKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  schema,
  touchApiKey,
  type Database,
} from "../src/index.ts";
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

    expect(await findActiveApiKey(database, key)).toEqual({ id, projectId: p, scope: "full" });
    expect(await findActiveApiKey(database, `${key}x`)).toBeNull();
    expect(await findActiveApiKey(database, "crux_unknown")).toBeNull();

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
    expect(await findActiveApiKey(database, key)).toBeNull();
    expect(await findActiveApiKey(database, other.key)).toMatchObject({ projectId: p });
    // Revoked keys still count: a bootstrap must not mint a new key after a revocation.
    expect(await countApiKeys(database)).toBe(before + 2);
  });

  it("keeps each key's scope, lists keys without their secret, and rotates one into a new key of the same name and scope", async () => {
    const p = projectId();
    await ensureProject(database, p, "scopes");
    const tracer = await createApiKey(database, p, "tracer", "ingest");
    const dashboard = await createApiKey(database, p, "dashboard", "read");
    const admin = await createApiKey(database, p, "admin");
    expect(await findActiveApiKey(database, tracer.key)).toEqual({ id: tracer.id, projectId: p, scope: "ingest" });
    expect(await findActiveApiKey(database, dashboard.key)).toMatchObject({ scope: "read" });
    expect(await findActiveApiKey(database, admin.key)).toMatchObject({ scope: "full" });
    await expect(createApiKey(database, p, "bad", "everything" as "full")).rejects.toThrow();

    const listed = await listApiKeys(database, p);
    // Keys made in the same millisecond have no order between them: compared by name.
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect([...listed].sort(byName).map((k) => [k.name, k.scope, k.keyPrefix, k.lastUsedAt, k.revokedAt])).toEqual([
      ["admin", "full", admin.key.slice(0, 8), null, null],
      ["dashboard", "read", dashboard.key.slice(0, 8), null, null],
      ["tracer", "ingest", tracer.key.slice(0, 8), null, null],
    ]);
    expect(JSON.stringify(listed)).not.toContain(tracer.key);

    const rotated = await rotateApiKey(database, tracer.id);
    expect(rotated).toMatchObject({ projectId: p, scope: "ingest" });
    expect(rotated!.key).not.toBe(tracer.key);
    expect(await findActiveApiKey(database, tracer.key)).toBeNull();
    expect(await findActiveApiKey(database, rotated!.key)).toEqual({ id: rotated!.id, projectId: p, scope: "ingest" });
    expect(await rotateApiKey(database, tracer.id)).toBeNull(); // revoked: nothing to rotate
    const after = await listApiKeys(database, p);
    expect(Object.fromEntries(after.filter((k) => k.name === "tracer").map((k) => [k.id, k.revokedAt !== null]))).toEqual({
      [tracer.id]: true,
      [rotated!.id]: false,
    });
  });

  it("records the last use and never moves it backwards", async () => {
    const p = projectId();
    await ensureProject(database, p, "touch");
    const { id } = await createApiKey(database, p, "ci");
    await touchApiKey(database, id, new Date("2026-05-01T10:00:00Z"));
    await touchApiKey(database, id, new Date("2026-05-01T09:00:00Z"));
    expect((await listApiKeys(database, p))[0]!.lastUsedAt).toEqual(new Date("2026-05-01T10:00:00Z"));
    await touchApiKey(database, id, new Date("2026-05-01T11:00:00Z"));
    expect((await listApiKeys(database, p))[0]!.lastUsedAt).toEqual(new Date("2026-05-01T11:00:00Z"));
  });

  it("refuses a key for a project that does not exist", async () => {
    await expect(createApiKey(database, projectId(), "orphan")).rejects.toThrow();
  });
});
