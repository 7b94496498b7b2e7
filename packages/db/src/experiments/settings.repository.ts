/** The project's experiment settings (one row, defaults when absent). */
import { eq, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { experimentSettings } from "../schema/experiments.ts";
import { applyMetricsInclusion } from "./metrics-inclusion.ts";

export interface ExperimentSettingsValues {
  includeInMetrics: boolean;
  shipBar: unknown;
  maxRunsPerStart: number;
  concurrency: number;
  runTimeoutMs: number;
}

export const defaultExperimentSettings: ExperimentSettingsValues = {
  includeInMetrics: false,
  shipBar: null,
  maxRunsPerStart: 1000,
  concurrency: 4,
  runTimeoutMs: 1_800_000,
};

export async function getExperimentSettings(database: Database, projectId: string): Promise<ExperimentSettingsValues> {
  const [row] = await database.db.select().from(experimentSettings).where(eq(experimentSettings.projectId, projectId));
  if (row === undefined) return defaultExperimentSettings;
  return {
    includeInMetrics: row.includeInMetrics,
    shipBar: row.shipBar,
    maxRunsPerStart: row.maxRunsPerStart,
    concurrency: row.concurrency,
    runTimeoutMs: row.runTimeoutMs,
  };
}

/** Stores the settings; a change of includeInMetrics applies to the runs already stored too (metrics-inclusion.ts). */
export async function putExperimentSettings(database: Database, projectId: string, values: ExperimentSettingsValues): Promise<ExperimentSettingsValues> {
  const row = { ...values, shipBar: values.shipBar ?? null };
  const before = await getExperimentSettings(database, projectId);
  await database.db
    .insert(experimentSettings)
    .values({ projectId, ...row })
    .onConflictDoUpdate({ target: experimentSettings.projectId, set: { ...row, updatedAt: sql`now()` } });
  if (before.includeInMetrics !== values.includeInMetrics) await applyMetricsInclusion(database, projectId);
  return getExperimentSettings(database, projectId);
}
