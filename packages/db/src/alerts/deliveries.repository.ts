/**
 * Webhook deliveries and every attempt of each. A delivery is created
 * pending (with its fixed payload) in the transaction that makes its event,
 * or by a test send; the webhook.deliver job records each attempt and the
 * delivery's new status in one transaction. Postgres holds what must still be
 * sent, so a lost job is found again (listDueDeliveries).
 */
import { randomUUID } from "node:crypto";
import { PermanentError } from "@crux/core";
import { and, asc, desc, eq, getTableColumns, inArray, lte, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { cursorTime, nextTimeCursor, olderThanCursor } from "../sql/cursor.ts";
import { webhookDeliveries, webhookDeliveryAttempts } from "../schema/alerts.ts";
import { clampLimit } from "../sql/util.ts";

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface StoredDeliveryAttempt {
  attempt: number;
  startedAt: Date;
  status: number | null;
  ok: boolean;
  failureKind: string | null;
  message: string | null;
  durationMs: number;
  responseExcerpt: string;
}

export interface StoredDelivery {
  id: string;
  projectId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payload: unknown;
  status: DeliveryStatus;
  roundAttempts: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type DeliveryRow = typeof webhookDeliveries.$inferSelect;
const deliveryOf = (r: DeliveryRow): StoredDelivery => ({ ...r, status: r.status as DeliveryStatus });

export async function createDelivery(
  database: Database,
  d: { projectId: string; webhookId: string; eventId: string; eventType: string; payload: unknown },
): Promise<StoredDelivery> {
  const [row] = await database.db
    .insert(webhookDeliveries)
    .values({ id: randomUUID(), ...d, status: "pending", nextAttemptAt: sql`now()` })
    .returning();
  return deliveryOf(row!);
}

export async function getDelivery(database: Database, id: string): Promise<StoredDelivery | null> {
  const [row] = await database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row ? deliveryOf(row) : null;
}

export interface AttemptOutcome {
  attempt: Omit<StoredDeliveryAttempt, "attempt">;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  lastError: string | null;
}

/**
 * Appends one attempt and sets the delivery's status, if the delivery is still pending in the
 * round it was read in; false otherwise (a manual retry started a new round meanwhile).
 */
export async function recordDeliveryAttempt(database: Database, delivery: StoredDelivery, outcome: AttemptOutcome): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const updated = await tx
      .update(webhookDeliveries)
      .set({
        status: outcome.status,
        roundAttempts: delivery.roundAttempts + 1,
        nextAttemptAt: outcome.nextAttemptAt,
        lastError: outcome.lastError,
        updatedAt: sql`now()`,
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.roundAttempts, delivery.roundAttempts)))
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) return false;
    await tx.insert(webhookDeliveryAttempts).values({
      deliveryId: delivery.id,
      attempt: sql`(SELECT coalesce(max(a.attempt), 0) + 1 FROM webhook_delivery_attempts a WHERE a.delivery_id = ${delivery.id})`,
      ...outcome.attempt,
    });
    return true;
  });
}

/** Sends a delivery again from a fresh round of attempts; PermanentError conflict while it is still pending. */
export async function retryDelivery(database: Database, projectId: string, id: string): Promise<StoredDelivery | null> {
  const [row] = await database.db
    .update(webhookDeliveries)
    .set({ status: "pending", roundAttempts: 0, nextAttemptAt: sql`now()`, lastError: null, updatedAt: sql`now()` })
    .where(and(eq(webhookDeliveries.projectId, projectId), eq(webhookDeliveries.id, id), sql`${webhookDeliveries.status} <> 'pending'`))
    .returning();
  if (row) return deliveryOf(row);
  const [existing] = await database.db
    .select({ status: webhookDeliveries.status })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.projectId, projectId), eq(webhookDeliveries.id, id)));
  if (existing) throw new PermanentError("conflict", `delivery ${id} is still pending: it is being sent`);
  return null;
}

/** Pending deliveries due at `before`, oldest first: what a lost or never-enqueued job left behind. */
export async function listDueDeliveries(database: Database, before: Date, limit: number): Promise<string[]> {
  const rows = await database.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, before)))
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

export async function listDeliveries(
  database: Database,
  projectId: string,
  webhookId: string,
  q: { status?: DeliveryStatus | undefined; cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: (StoredDelivery & { attempts: StoredDeliveryAttempt[] })[]; nextCursor: string | null }> {
  const limit = clampLimit(q.limit, 100, 20);
  const rows = await database.db
    .select({ ...getTableColumns(webhookDeliveries), cursorAt: cursorTime(webhookDeliveries.createdAt) })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.projectId, projectId),
        eq(webhookDeliveries.webhookId, webhookId),
        q.status === undefined ? undefined : eq(webhookDeliveries.status, q.status),
        olderThanCursor(q.cursor, webhookDeliveries.createdAt, webhookDeliveries.id),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit).map(({ cursorAt: _at, ...r }) => deliveryOf(r));
  const attempts = await attemptsOf(
    database,
    page.map((d) => d.id),
  );
  return { items: page.map((d) => ({ ...d, attempts: attempts.get(d.id) ?? [] })), nextCursor: nextTimeCursor(rows, limit) };
}

export async function getDeliveryWithAttempts(
  database: Database,
  projectId: string,
  id: string,
): Promise<(StoredDelivery & { attempts: StoredDeliveryAttempt[] }) | null> {
  const d = await getDelivery(database, id);
  if (!d || d.projectId !== projectId) return null;
  return { ...d, attempts: (await attemptsOf(database, [id])).get(id) ?? [] };
}

async function attemptsOf(database: Database, ids: string[]): Promise<Map<string, StoredDeliveryAttempt[]>> {
  const out = new Map<string, StoredDeliveryAttempt[]>();
  if (ids.length === 0) return out;
  const rows = await database.db
    .select()
    .from(webhookDeliveryAttempts)
    .where(inArray(webhookDeliveryAttempts.deliveryId, ids))
    .orderBy(asc(webhookDeliveryAttempts.deliveryId), asc(webhookDeliveryAttempts.attempt));
  for (const { deliveryId, ...a } of rows) {
    const list = out.get(deliveryId) ?? [];
    list.push(a);
    out.set(deliveryId, list);
  }
  return out;
}
