/**
 * Projects and API keys. A key is shown once, at creation; only its sha256 is
 * stored, so a database leak does not leak usable keys. Each key has a scope
 * (what packages/auth lets it do) and a last-used time.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, asc, count, eq, isNull, lt, or } from "drizzle-orm";
import type { Database } from "../client.ts";
import { apiKeys, projects } from "../schema/keys.ts";

export const apiKeyPrefix = "crux_";

/**
 * What a key may do: `ingest` sends traces only (a tracer's key: it cannot read
 * prompts back), `read` reads the API only, `full` does both and changes
 * configuration. Keys made before scopes existed are `full`.
 */
export const apiKeyScopes = ["ingest", "read", "full"] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (apiKeyScopes as readonly string[]).includes(value);
}

function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Creates the project if it does not exist; an existing project keeps its name. */
export async function ensureProject(database: Database, id: string, name: string): Promise<void> {
  await database.db.insert(projects).values({ id, name }).onConflictDoNothing();
}

/** Returns the new key in clear, once; the caller shows it to the user. */
export async function createApiKey(
  database: Database,
  projectId: string,
  name: string,
  scope: ApiKeyScope = "full",
): Promise<{ id: string; key: string; scope: ApiKeyScope }> {
  const created = newKey();
  await database.db.insert(apiKeys).values({ id: created.id, projectId, name, scope, keyHash: hashKey(created.key), keyPrefix: created.key.slice(0, 8) });
  return { ...created, scope };
}

function newKey(): { id: string; key: string } {
  return { id: randomUUID(), key: apiKeyPrefix + randomBytes(32).toString("base64url") };
}

/** An active key as authentication needs it. */
export interface ActiveApiKey {
  id: string;
  projectId: string;
  scope: ApiKeyScope;
}

/**
 * The active key with this secret, or null for an unknown or revoked key. Looking
 * up by hash means no comparison of secret bytes happens in our code.
 */
export async function findActiveApiKey(database: Database, key: string): Promise<ActiveApiKey | null> {
  const rows = await database.db
    .select({ id: apiKeys.id, projectId: apiKeys.projectId, scope: apiKeys.scope })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hashKey(key)), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = rows[0];
  // The column's check constraint admits only the scopes; anything else would be a bug, and gets the least.
  return row ? { ...row, scope: isApiKeyScope(row.scope) ? row.scope : "ingest" } : null;
}

/** Records a successful use; never moves the time backwards (two processes may write out of order). */
export async function touchApiKey(database: Database, keyId: string, at: Date): Promise<void> {
  await database.db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, at))));
}

/** A key as `crux keys list` shows it: never the secret, only its first characters. */
export interface ApiKeyListing {
  id: string;
  projectId: string;
  name: string;
  scope: string;
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The keys of a project (every project when omitted), oldest first, revoked ones included. */
export async function listApiKeys(database: Database, projectId?: string): Promise<ApiKeyListing[]> {
  const columns = {
    id: apiKeys.id,
    projectId: apiKeys.projectId,
    name: apiKeys.name,
    scope: apiKeys.scope,
    keyPrefix: apiKeys.keyPrefix,
    createdAt: apiKeys.createdAt,
    lastUsedAt: apiKeys.lastUsedAt,
    revokedAt: apiKeys.revokedAt,
  };
  const query = database.db.select(columns).from(apiKeys);
  const filtered = projectId === undefined ? query : query.where(eq(apiKeys.projectId, projectId));
  return filtered.orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/**
 * Replaces an active key with a new one of the same project, name and scope, in one
 * transaction: the old key is revoked (it stops working within the authenticators'
 * cache time) and the new one is returned in clear, once. Null when there is no such active key.
 */
export async function rotateApiKey(database: Database, keyId: string): Promise<{ id: string; key: string; projectId: string; scope: string } | null> {
  return database.db.transaction(async (tx) => {
    const [old] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning({ projectId: apiKeys.projectId, name: apiKeys.name, scope: apiKeys.scope });
    if (!old) return null;
    const created = newKey();
    await tx.insert(apiKeys).values({ ...old, id: created.id, keyHash: hashKey(created.key), keyPrefix: created.key.slice(0, 8) });
    return { ...created, projectId: old.projectId, scope: old.scope };
  });
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
