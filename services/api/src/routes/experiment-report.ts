/**
 * Assembles an experiment report: the runs, the dataset's task lengths and
 * families, the project's measured modes and ship bar from storage; every
 * figure from packages/core (buildExperimentReport), never computed here.
 */
import { buildExperimentReport, defaultReportOptions, mastModeIds, type ExperimentReport, type ShipBar } from "@crux/core";
import {
  configuredCoverage,
  getExperiment,
  getExperimentSettings,
  readDatasetVersion,
  readExperimentRuns,
  type Database,
  type StoredExperiment,
} from "@crux/db";

export async function experimentReport(
  database: Database,
  projectId: string,
  experiment: StoredExperiment,
): Promise<ExperimentReport & { experimentId: string }> {
  const [runs, settings, coverage, items] = await Promise.all([
    readExperimentRuns(database, projectId, experiment.id),
    getExperimentSettings(database, projectId),
    configuredCoverage(database, projectId, undefined),
    experiment.datasetId === null || experiment.datasetVersion === null
      ? Promise.resolve([])
      : readDatasetVersion(database, experiment.datasetId, experiment.datasetVersion),
  ]);
  const report = buildExperimentReport(
    {
      valueKind: experiment.valueKind,
      variants: experiment.variants.map((v) => ({ name: v.name, isBaseline: v.isBaseline, activeAgents: v.activeAgents })),
      runs,
      tasks: items.map((i) => ({ taskId: i.taskId, humanMinutes: i.humanMinutes, family: i.family })),
      measuredModes: coverage.filter((c) => c.measured).map((c) => c.mode),
      allModes: [...mastModeIds],
      bar: (settings.shipBar as ShipBar | null) ?? null,
    },
    defaultReportOptions,
  );
  return { experimentId: experiment.id, ...report };
}

/** The runs of an experiment for a before/after comparison, with the variant the report would name its candidate. */
export async function experimentRunsFor(database: Database, projectId: string, id: string) {
  const experiment = await getExperiment(database, projectId, id);
  if (experiment === null) return null;
  return { experiment, runs: await readExperimentRuns(database, projectId, id) };
}
