/**
 * Webhooks of a project. The signing secret (as the caller stores it: sealed
 * with the operator key, or as it is) is written here and read only by the
 * delivery (getWebhookForDelivery); every other read leaves it out, so the
 * API cannot serve it after the answer that created or rotated it.
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { afterIdCursor, nextIdCursor } from "../sql/cursor.ts";
import { webhooks } from "../schema/alerts.ts";
import { clampLimit } from "../sql/util.ts";

export interface WebhookInput {
  url: string;
  description: string;
  enabled: boolean;
  slack: boolean;
  allowPrivateTargets: boolean;
}

export interface StoredWebhook extends WebhookInput {
  id: string;
  projectId: string;
  /** The first 12 characters of the secret itself (whsec_ + 6), to tell secrets apart. */
  secretPrefix: string;
  createdAt: Date;
  updatedAt: Date;
}

const { secret: _secret, previousSecret: _previous, previousSecretUntil: _until, ...selected } = getTableColumns(webhooks);

/** The secret as stored, and the start of the secret itself (stored apart: the stored form may be sealed). */
export interface StoredSecret {
  stored: string;
  prefix: string;
}

const ofProject = (projectId: string, id: string) => and(eq(webhooks.projectId, projectId), eq(webhooks.id, id));

export async function createWebhook(database: Database, projectId: string, input: WebhookInput, secret: StoredSecret): Promise<StoredWebhook> {
  const [row] = await database.db
    .insert(webhooks)
    .values({ id: randomUUID(), projectId, ...input, secret: secret.stored, secretPrefix: secret.prefix })
    .returning(selected);
  return row!;
}

export async function getWebhook(database: Database, projectId: string, id: string): Promise<StoredWebhook | null> {
  const [row] = await database.db.select(selected).from(webhooks).where(ofProject(projectId, id));
  return row ?? null;
}

/**
 * With the secret as stored (openWebhookSecret reads it), and the one a rotation replaced while its
 * overlap lasts (null after): for signing a delivery only.
 */
export async function getWebhookForDelivery(
  database: Database,
  id: string,
): Promise<(StoredWebhook & { secret: string; previousSecret: string | null }) | null> {
  const [row] = await database.db
    .select({
      ...selected,
      secret: webhooks.secret,
      previousSecret: sql<string | null>`CASE WHEN ${webhooks.previousSecretUntil} > now() THEN ${webhooks.previousSecret} END`,
    })
    .from(webhooks)
    .where(eq(webhooks.id, id));
  return row ?? null;
}

export async function replaceWebhook(database: Database, projectId: string, id: string, input: WebhookInput): Promise<StoredWebhook | null> {
  const [row] = await database.db
    .update(webhooks)
    .set({ ...input, updatedAt: sql`now()` })
    .where(ofProject(projectId, id))
    .returning(selected);
  return row ?? null;
}

/** Deliveries still pending for it are deleted with it (cascade): nothing is sent to a removed endpoint. */
export async function deleteWebhook(database: Database, projectId: string, id: string): Promise<boolean> {
  const rows = await database.db.delete(webhooks).where(ofProject(projectId, id)).returning({ id: webhooks.id });
  return rows.length > 0;
}

/**
 * Deliveries from now on are signed with the new secret and, for overlapMs, with the one it replaces
 * as well (two signatures in webhook-signature), so a receiver still checking the old secret keeps
 * accepting them while it is updated. overlapMs 0 ends the old secret at once.
 */
export async function rotateWebhookSecret(
  database: Database,
  projectId: string,
  id: string,
  secret: StoredSecret,
  overlapMs: number,
): Promise<StoredWebhook | null> {
  const [row] = await database.db
    .update(webhooks)
    .set({
      secret: secret.stored,
      secretPrefix: secret.prefix,
      previousSecret: sql`${webhooks.secret}`,
      previousSecretUntil: sql`now() + ${overlapMs} * interval '1 millisecond'`,
      updatedAt: sql`now()`,
    })
    .where(ofProject(projectId, id))
    .returning(selected);
  return row ?? null;
}

export async function listWebhooks(
  database: Database,
  projectId: string,
  page: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: StoredWebhook[]; nextCursor: string | null }> {
  const limit = clampLimit(page.limit);
  const rows = await database.db
    .select(selected)
    .from(webhooks)
    .where(and(eq(webhooks.projectId, projectId), afterIdCursor(page.cursor, webhooks.id)))
    .orderBy(asc(webhooks.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit), nextCursor: nextIdCursor(rows, limit) };
}
