/**
 * Projects and API keys. A key is shown once, at creation; only its sha256 is
 * stored, so a database leak does not leak usable keys.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, count, eq, isNull } from "drizzle-orm";
import type { Database } from "./client.ts";
import { apiKeys, projects } from "./schema.ts";

export const apiKeyPrefix = "crux_";

function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Creates the project if it does not exist; an existing project keeps its name. */
export async function ensureProject(database: Database, id: string, name: string): Promise<void> {
  await database.db.insert(projects).values({ id, name }).onConflictDoNothing();
}

/** Returns the new key in clear, once; the caller shows it to the user. */
export async function createApiKey(database: Database, projectId: string, name: string): Promise<{ id: string; key: string }> {
  const key = apiKeyPrefix + randomBytes(32).toString("base64url");
  const id = randomUUID();
  await database.db.insert(apiKeys).values({ id, projectId, name, keyHash: hashKey(key), keyPrefix: key.slice(0, 8) });
  return { id, key };
}

/**
 * The project a key belongs to, or null for an unknown or revoked key. Looking
 * up by hash means no comparison of secret bytes happens in our code.
 */
export async function findProjectByApiKey(database: Database, key: string): Promise<string | null> {
  const rows = await database.db
    .select({ projectId: apiKeys.projectId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hashKey(key)), isNull(apiKeys.revokedAt)))
    .limit(1);
  return rows[0]?.projectId ?? null;
}

/** Revokes a key by id; returns false if there was no such active key. */
export async function revokeApiKey(database: Database, keyId: string): Promise<boolean> {
  const rows = await database.db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/**
 * Every key ever created, revoked ones included: a bootstrap that creates a key
 * when this is 0 must not mint a fresh key after an operator revoked the last one.
 */
export async function countApiKeys(database: Database): Promise<number> {
  const rows = await database.db.select({ n: count() }).from(apiKeys);
  return rows[0]?.n ?? 0;
}
