/**
 * Versioned datasets: every change writes a new version holding the whole
 * item set (copied from the previous one, then changed), so an experiment
 * pinned to a version reads exactly the tasks it was planned on. Size limits
 * are checked in the transaction that would exceed them: nothing is written.
 */
import { randomUUID } from "node:crypto";
import { PermanentError } from "@crux/core";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { afterIdCursor, nextIdCursor } from "../sql/cursor.ts";
import { clampLimit, decodeCursor, encodeCursor } from "../sql/util.ts";
import { datasetItems, datasets, datasetVersions } from "../schema/experiments.ts";

export interface DatasetItemInput {
  taskId: string;
  input: unknown;
  expected: unknown;
  milestoneSetId: string | null;
  humanMinutes: number | null;
  family: string | null;
  tags: string[];
}

export interface StoredDataset {
  id: string;
  name: string;
  description: string;
  currentVersion: number;
  items: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface StoredDatasetItem extends DatasetItemInput {
  version: number;
}

/** Items one version may hold (the API's contract says the same). */
export const datasetItemLimit = 10_000;

type Tx = Parameters<Parameters<Database["db"]["transaction"]>[0]>[0];

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

const selected = {
  id: datasets.id,
  name: datasets.name,
  description: datasets.description,
  currentVersion: datasets.currentVersion,
  items: datasetVersions.items,
  createdAt: datasets.createdAt,
  updatedAt: datasets.updatedAt,
};

const withCurrentVersion = and(eq(datasetVersions.datasetId, datasets.id), eq(datasetVersions.version, datasets.currentVersion));

async function insertItems(tx: Tx, datasetId: string, version: number, items: readonly DatasetItemInput[]): Promise<void> {
  for (let i = 0; i < items.length; i += 500) {
    await tx.insert(datasetItems).values(
      items.slice(i, i + 500).map((x) => ({
        datasetId,
        version,
        taskId: x.taskId,
        input: x.input ?? null,
        expected: x.expected ?? null,
        milestoneSetId: x.milestoneSetId,
        humanMinutes: x.humanMinutes,
        family: x.family,
        tags: x.tags,
      })),
    );
  }
}

function checkSize(n: number): void {
  if (n > datasetItemLimit) throw new PermanentError("invalid_request", `the dataset would hold ${n} items; a version holds at most ${datasetItemLimit}`);
}

export async function createDataset(
  database: Database,
  projectId: string,
  input: { name: string; description: string; items: readonly DatasetItemInput[] },
): Promise<StoredDataset> {
  checkSize(input.items.length);
  const id = randomUUID();
  try {
    await database.db.transaction(async (tx) => {
      await tx.insert(datasets).values({ id, projectId, name: input.name, description: input.description, currentVersion: 1 });
      await tx.insert(datasetVersions).values({ datasetId: id, version: 1, items: input.items.length });
      await insertItems(tx, id, 1, input.items);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new PermanentError("conflict", `a dataset named ${input.name} already exists`);
    throw err;
  }
  return (await getDataset(database, projectId, id))!;
}

export async function getDataset(database: Database, projectId: string, id: string): Promise<StoredDataset | null> {
  const [row] = await database.db
    .select(selected)
    .from(datasets)
    .innerJoin(datasetVersions, withCurrentVersion)
    .where(and(eq(datasets.projectId, projectId), eq(datasets.id, id)));
  return row ?? null;
}

export async function listDatasets(database: Database, projectId: string, page: { cursor?: string | undefined; limit?: number }) {
  const limit = clampLimit(page.limit);
  const rows = await database.db
    .select(selected)
    .from(datasets)
    .innerJoin(datasetVersions, withCurrentVersion)
    .where(and(eq(datasets.projectId, projectId), afterIdCursor(page.cursor, datasets.id)))
    .orderBy(asc(datasets.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit), nextCursor: nextIdCursor(rows, limit) };
}

/**
 * A new version: the current items with `items` added (an item of the same task id replaces the
 * old one), or `items` alone with `replace`. Null for an unknown dataset.
 */
export async function addDatasetItems(
  database: Database,
  projectId: string,
  id: string,
  items: readonly DatasetItemInput[],
  replace: boolean,
): Promise<StoredDataset | null> {
  const found = await database.db.transaction(async (tx) => {
    // The row lock serializes versions of one dataset: two changes never make the same version.
    const [ds] = await tx
      .select({ currentVersion: datasets.currentVersion })
      .from(datasets)
      .where(and(eq(datasets.projectId, projectId), eq(datasets.id, id)))
      .for("update");
    if (ds === undefined) return false;
    const version = ds.currentVersion + 1;
    const taskIds = items.map((x) => x.taskId);
    if (!replace) {
      await tx.execute(sql`INSERT INTO dataset_items (dataset_id, version, task_id, input, expected, milestone_set_id, human_minutes, family, tags)
        SELECT dataset_id, ${version}, task_id, input, expected, milestone_set_id, human_minutes, family, tags FROM dataset_items
        WHERE dataset_id = ${id} AND version = ${ds.currentVersion} AND NOT (task_id = ANY(${sql.param(taskIds)}::text[]))`);
    }
    await insertItems(tx, id, version, items);
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(datasetItems)
      .where(and(eq(datasetItems.datasetId, id), eq(datasetItems.version, version)));
    checkSize(count!.n);
    await tx.insert(datasetVersions).values({ datasetId: id, version, items: count!.n });
    await tx
      .update(datasets)
      .set({ currentVersion: version, updatedAt: sql`now()` })
      .where(eq(datasets.id, id));
    return true;
  });
  return found ? getDataset(database, projectId, id) : null;
}

/** Items of one version (default: the current one) by task id; null for an unknown dataset or version. */
export async function listDatasetItems(
  database: Database,
  projectId: string,
  id: string,
  page: { version?: number | undefined; cursor?: string | undefined; limit?: number },
): Promise<{ version: number; items: StoredDatasetItem[]; nextCursor: string | null } | null> {
  const ds = await getDataset(database, projectId, id);
  if (ds === null) return null;
  const version = page.version ?? ds.currentVersion;
  if (version > ds.currentVersion) return null;
  const limit = clampLimit(page.limit, 1000);
  const after = page.cursor === undefined ? undefined : gt(datasetItems.taskId, String(decodeCursor(page.cursor, 1)[0]));
  const rows = await database.db
    .select()
    .from(datasetItems)
    .where(and(eq(datasetItems.datasetId, id), eq(datasetItems.version, version), after))
    .orderBy(asc(datasetItems.taskId))
    .limit(limit + 1);
  const last = rows[limit - 1];
  return {
    version,
    items: rows.slice(0, limit).map((r) => ({
      version: r.version,
      taskId: r.taskId,
      input: r.input,
      expected: r.expected,
      milestoneSetId: r.milestoneSetId,
      humanMinutes: r.humanMinutes,
      family: r.family,
      tags: r.tags,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor([last.taskId]) : null,
  };
}

/** Every item of one version, for planning runs and the report (at most datasetItemLimit). */
export async function readDatasetVersion(database: Database, datasetId: string, version: number): Promise<StoredDatasetItem[]> {
  const rows = await database.db
    .select()
    .from(datasetItems)
    .where(and(eq(datasetItems.datasetId, datasetId), eq(datasetItems.version, version)))
    .orderBy(asc(datasetItems.taskId));
  return rows.map((r) => ({ ...r, input: r.input, expected: r.expected }));
}

/** The dataset with every version and item. Experiments that used it keep their runs. */
export async function deleteDataset(database: Database, projectId: string, id: string): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .delete(datasets)
      .where(and(eq(datasets.projectId, projectId), eq(datasets.id, id)))
      .returning({ id: datasets.id });
    if (rows.length === 0) return false;
    await tx.delete(datasetItems).where(eq(datasetItems.datasetId, id));
    return true;
  });
}
