/**
 * Experiments: declared ones (a row with its variants) and implicit ones,
 * known only from runs tagged crux.experiment.id (read from trace_scores).
 * Both are served alike; an implicit experiment's variants are the tags its
 * runs carried, its baseline the variant whose runs are baseline-tagged.
 */
import { PermanentError } from "@crux/core";
import { and, asc, eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { clampLimit, decodeCursor, encodeCursor } from "../sql/util.ts";
import { datasets, experimentDispatches, experimentSettings, experimentVariants, experiments } from "../schema/experiments.ts";

type ValueKind = "success" | "partial_credit";
type ExperimentStatus = "draft" | "running" | "stopped" | "done";

export interface VariantInput {
  name: string;
  description: string;
  isBaseline: boolean;
  activeAgents: string[] | null;
}

export interface ExperimentInput {
  id: string;
  name: string;
  description: string;
  datasetId: string | null;
  datasetVersion: number | null;
  trials: number;
  valueKind: ValueKind;
  runnerId: string | null;
  runTimeoutMs: number | null;
  variants: VariantInput[];
}

export interface StoredExperiment {
  id: string;
  implicit: boolean;
  name: string;
  description: string;
  datasetId: string | null;
  datasetVersion: number | null;
  trials: number;
  valueKind: ValueKind;
  runnerId: string | null;
  runTimeoutMs: number;
  status: ExperimentStatus;
  variants: (VariantInput & { implicit: boolean })[];
  runs: number;
  createdAt: Date | null;
  updatedAt: Date | null;
}

export const defaultRunTimeoutMs = 1_800_000;

const sortAgents = (a: string[] | null) => (a === null ? null : [...new Set(a)].sort());

/** Creates the experiment (pinning the dataset's current version when none is named). */
export async function createExperiment(database: Database, projectId: string, input: ExperimentInput): Promise<StoredExperiment> {
  await database.db.transaction(async (tx) => {
    let version = input.datasetVersion;
    if (input.datasetId !== null) {
      const [ds] = await tx
        .select({ currentVersion: datasets.currentVersion })
        .from(datasets)
        .where(and(eq(datasets.projectId, projectId), eq(datasets.id, input.datasetId)));
      if (ds === undefined) throw new PermanentError("not_found", `dataset ${input.datasetId} not found`);
      if (version !== null && version > ds.currentVersion) throw new PermanentError("invalid_request", `datasetVersion: the dataset has no version ${version}`);
      version ??= ds.currentVersion;
    }
    const [settings] = await tx
      .select({ runTimeoutMs: experimentSettings.runTimeoutMs })
      .from(experimentSettings)
      .where(eq(experimentSettings.projectId, projectId));
    const inserted = await tx
      .insert(experiments)
      .values({
        projectId,
        id: input.id,
        name: input.name,
        description: input.description,
        datasetId: input.datasetId,
        datasetVersion: version,
        trials: input.trials,
        valueKind: input.valueKind,
        runnerId: input.runnerId,
        status: "draft",
        runTimeoutMs: input.runTimeoutMs ?? settings?.runTimeoutMs ?? defaultRunTimeoutMs,
      })
      .onConflictDoNothing()
      .returning({ id: experiments.id });
    if (inserted.length === 0) throw new PermanentError("conflict", `experiment ${input.id} already exists`);
    await insertVariants(tx, projectId, input.id, input.variants, 0);
  });
  return (await getExperiment(database, projectId, input.id))!;
}

type Tx = Parameters<Parameters<Database["db"]["transaction"]>[0]>[0];

async function insertVariants(tx: Tx, projectId: string, experimentId: string, variants: readonly VariantInput[], firstOrd: number): Promise<void> {
  for (let i = 0; i < variants.length; i += 500) {
    await tx.insert(experimentVariants).values(
      variants.slice(i, i + 500).map((v, j) => ({
        projectId,
        experimentId,
        name: v.name,
        description: v.description,
        isBaseline: v.isBaseline,
        activeAgents: sortAgents(v.activeAgents),
        ord: firstOrd + i + j,
      })),
    );
  }
}

/** Adds variants (ablations) to a declared experiment; names already there are skipped. Returns the names added, null for an unknown experiment. */
export async function addVariants(database: Database, projectId: string, experimentId: string, variants: readonly VariantInput[]): Promise<string[] | null> {
  return database.db.transaction(async (tx) => {
    const [e] = await tx
      .select({ id: experiments.id })
      .from(experiments)
      .where(and(eq(experiments.projectId, projectId), eq(experiments.id, experimentId)))
      .for("update");
    if (e === undefined) return null;
    const existing = await tx
      .select({ name: experimentVariants.name, ord: experimentVariants.ord })
      .from(experimentVariants)
      .where(and(eq(experimentVariants.projectId, projectId), eq(experimentVariants.experimentId, experimentId)));
    const names = new Set(existing.map((v) => v.name));
    const fresh = variants.filter((v) => !names.has(v.name));
    if (existing.length + fresh.length > 1100)
      throw new PermanentError("invalid_request", `the experiment would have ${existing.length + fresh.length} variants; at most 1100`);
    await insertVariants(
      tx,
      projectId,
      experimentId,
      fresh,
      existing.reduce((m, v) => Math.max(m, v.ord + 1), 0),
    );
    await tx
      .update(experiments)
      .set({ updatedAt: sql`now()` })
      .where(and(eq(experiments.projectId, projectId), eq(experiments.id, experimentId)));
    return fresh.map((v) => v.name);
  });
}

export async function setExperimentStatus(database: Database, projectId: string, id: string, status: ExperimentStatus): Promise<void> {
  await database.db
    .update(experiments)
    .set({ status, updatedAt: sql`now()` })
    .where(and(eq(experiments.projectId, projectId), eq(experiments.id, id)));
}

/**
 * The tagged variants of an experiment's scored runs: name, runs, whether any is baseline-tagged,
 * and the active agents its runs carry when they all carry the same set (else null: the whole
 * system), so an implicit variant's coalition is what its runs say, as a declared one's is.
 */
async function taggedVariants(database: Database, projectId: string, experimentId: string) {
  const rows = rowsOf(
    await database.db.execute(sql`SELECT coalesce(s.variant, CASE WHEN s.is_baseline THEN 'baseline' ELSE 'default' END) AS variant,
        count(*)::int AS runs, bool_or(s.is_baseline) AS baseline,
        CASE WHEN count(s.active_agents) = count(*) AND count(DISTINCT s.active_agents) = 1 THEN min(s.active_agents::text) END AS agents
      FROM trace_scores s WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId} GROUP BY 1 ORDER BY 1`),
  );
  return rows.map((r) => ({
    name: String(r.variant),
    runs: Number(r.runs),
    isBaseline: r.baseline === true,
    activeAgents: r.agents === null || r.agents === undefined ? null : sortAgents(JSON.parse(String(r.agents)) as string[]),
  }));
}

/**
 * An implicit experiment's trials: the most runs of one task in one variant, a trial number
 * counted once (runs of trials 0 and 1 are 2 trials; a repeated trial is still one).
 */
async function taggedTrials(database: Database, projectId: string, experimentId: string): Promise<number> {
  const [row] = rowsOf(
    await database.db.execute(sql`SELECT max(n)::int AS trials FROM (
        SELECT count(DISTINCT coalesce(s.trial::text, 'trace:' || s.trace_id)) AS n FROM trace_scores s
        WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId}
        GROUP BY coalesce(s.variant, CASE WHEN s.is_baseline THEN 'baseline' ELSE 'default' END), coalesce(s.task_id, 'trace:' || s.trace_id)) x`),
  );
  return Math.max(1, Number(row?.trials ?? 1));
}

const implicitVariant = (v: Awaited<ReturnType<typeof taggedVariants>>[number]) => ({
  name: v.name,
  description: "",
  isBaseline: v.isBaseline,
  activeAgents: v.activeAgents,
  implicit: true,
});

/** A declared experiment, else an implicit one with scored runs, else null. */
export async function getExperiment(database: Database, projectId: string, id: string): Promise<StoredExperiment | null> {
  const [row] = await database.db
    .select()
    .from(experiments)
    .where(and(eq(experiments.projectId, projectId), eq(experiments.id, id)));
  const tagged = await taggedVariants(database, projectId, id);
  const runs = tagged.reduce((n, v) => n + v.runs, 0);
  if (row === undefined) {
    if (tagged.length === 0) return null;
    return {
      id,
      implicit: true,
      name: id,
      description: "",
      datasetId: null,
      datasetVersion: null,
      trials: await taggedTrials(database, projectId, id),
      valueKind: "success",
      runnerId: null,
      runTimeoutMs: defaultRunTimeoutMs,
      status: "done",
      variants: tagged.map(implicitVariant),
      runs,
      createdAt: null,
      updatedAt: null,
    };
  }
  const declared = await database.db
    .select()
    .from(experimentVariants)
    .where(and(eq(experimentVariants.projectId, projectId), eq(experimentVariants.experimentId, id)))
    .orderBy(asc(experimentVariants.ord));
  const names = new Set(declared.map((v) => v.name));
  return {
    id: row.id,
    implicit: false,
    name: row.name,
    description: row.description,
    datasetId: row.datasetId,
    datasetVersion: row.datasetVersion,
    trials: row.trials,
    valueKind: row.valueKind as ValueKind,
    runnerId: row.runnerId,
    runTimeoutMs: row.runTimeoutMs,
    status: row.status as ExperimentStatus,
    variants: [
      ...declared.map((v) => ({
        name: v.name,
        description: v.description,
        isBaseline: v.isBaseline,
        activeAgents: v.activeAgents as string[] | null,
        implicit: false,
      })),
      ...tagged.filter((v) => !names.has(v.name)).map(implicitVariant),
    ],
    runs,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Declared and implicit experiments by id. */
export async function listExperiments(database: Database, projectId: string, page: { cursor?: string | undefined; limit?: number }) {
  const limit = clampLimit(page.limit, 100);
  const after = page.cursor === undefined ? null : String(decodeCursor(page.cursor, 1)[0]);
  const rows = rowsOf(
    await database.db.execute(sql`SELECT id FROM (
        SELECT e.id FROM experiments e WHERE e.project_id = ${projectId}
        UNION SELECT DISTINCT s.experiment_id FROM trace_scores s WHERE s.project_id = ${projectId} AND s.experiment_id IS NOT NULL
      ) x WHERE ${after === null ? sql`true` : sql`x.id > ${after}`} ORDER BY x.id LIMIT ${limit + 1}`),
  );
  const ids = rows.map((r) => String(r.id));
  const items = (await Promise.all(ids.slice(0, limit).map((id) => getExperiment(database, projectId, id)))).filter((e): e is StoredExperiment => e !== null);
  const last = ids[limit - 1];
  return { items, nextCursor: ids.length > limit && last !== undefined ? encodeCursor([last]) : null };
}

/** The declared experiment, its variants and dispatches; its runs (traces) stay. False when nothing was declared. */
export async function deleteExperiment(database: Database, projectId: string, id: string): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .delete(experiments)
      .where(and(eq(experiments.projectId, projectId), eq(experiments.id, id)))
      .returning({ id: experiments.id });
    await tx.delete(experimentVariants).where(and(eq(experimentVariants.projectId, projectId), eq(experimentVariants.experimentId, id)));
    await tx
      .delete(experimentDispatches)
      .where(and(eq(experimentDispatches.projectId, projectId), eq(experimentDispatches.kind, "experiment"), eq(experimentDispatches.experimentId, id)));
    return rows.length > 0;
  });
}
