/**
 * Runners: a project's endpoints that run its system for one task and export
 * the trace with the run's tags. Signed like webhooks (the secret stored as
 * alerts/webhook-secret.ts stores it, served only when created).
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, getTableColumns } from "drizzle-orm";
import type { Database } from "../client.ts";
import { afterIdCursor, nextIdCursor } from "../sql/cursor.ts";
import type { StoredSecret } from "../alerts/webhooks.repository.ts";
import { runners } from "../schema/experiments.ts";
import { clampLimit } from "../sql/util.ts";

export interface RunnerInput {
  name: string;
  url: string;
  allowPrivateTargets: boolean;
}

export interface StoredRunner extends RunnerInput {
  id: string;
  projectId: string;
  secretPrefix: string;
  createdAt: Date;
  updatedAt: Date;
}

const { secret: _secret, ...selected } = getTableColumns(runners);
const ofProject = (projectId: string, id: string) => and(eq(runners.projectId, projectId), eq(runners.id, id));

export async function createRunner(database: Database, projectId: string, input: RunnerInput, secret: StoredSecret): Promise<StoredRunner> {
  const [row] = await database.db
    .insert(runners)
    .values({ id: randomUUID(), projectId, ...input, secret: secret.stored, secretPrefix: secret.prefix })
    .returning(selected);
  return row!;
}

export async function getRunner(database: Database, projectId: string, id: string): Promise<StoredRunner | null> {
  const [row] = await database.db.select(selected).from(runners).where(ofProject(projectId, id));
  return row ?? null;
}

/** With the secret as stored: for signing a dispatch only. */
export async function getRunnerForDispatch(database: Database, projectId: string, id: string): Promise<(StoredRunner & { secret: string }) | null> {
  const [row] = await database.db
    .select({ ...selected, secret: runners.secret })
    .from(runners)
    .where(ofProject(projectId, id));
  return row ?? null;
}

export async function listRunners(database: Database, projectId: string, page: { cursor?: string | undefined; limit?: number }) {
  const limit = clampLimit(page.limit);
  const rows = await database.db
    .select(selected)
    .from(runners)
    .where(and(eq(runners.projectId, projectId), afterIdCursor(page.cursor, runners.id)))
    .orderBy(asc(runners.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit), nextCursor: nextIdCursor(rows, limit) };
}

export async function deleteRunner(database: Database, projectId: string, id: string): Promise<boolean> {
  const rows = await database.db.delete(runners).where(ofProject(projectId, id)).returning({ id: runners.id });
  return rows.length > 0;
}
