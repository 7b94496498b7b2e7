export {
  createDataset,
  getDataset,
  listDatasets,
  addDatasetItems,
  listDatasetItems,
  readDatasetVersion,
  deleteDataset,
  datasetItemLimit,
  type DatasetItemInput,
  type StoredDataset,
  type StoredDatasetItem,
} from "./datasets.repository.ts";
export {
  createExperiment,
  getExperiment,
  listExperiments,
  addVariants,
  deleteExperiment,
  setExperimentStatus,
  defaultRunTimeoutMs,
  type ExperimentInput,
  type StoredExperiment,
  type VariantInput,
} from "./experiments.repository.ts";
export { readExperimentRuns } from "./runs.query.ts";
export { getExperimentSettings, putExperimentSettings, defaultExperimentSettings, type ExperimentSettingsValues } from "./settings.repository.ts";
export { createRunner, getRunner, getRunnerForDispatch, listRunners, deleteRunner, type RunnerInput, type StoredRunner } from "./runners.repository.ts";
export {
  planDispatches,
  countPlanned,
  getDispatch,
  claimDispatch,
  settleDispatch,
  stopDispatches,
  resumeDispatches,
  pendingDispatchIds,
  listOverdueDispatches,
  dispatchProgress,
  type PlannedRun,
  type StoredDispatch,
  type DispatchProgress,
} from "./dispatches.repository.ts";
export {
  createReplay,
  deleteReplay,
  getReplay,
  listReplays,
  readReplayReport,
  readReplayAttributions,
  replaySetId,
  type ReplayAttribution,
  type ReplayCorrection,
  type ReplayTask,
  type StoredReplay,
} from "./replays.repository.ts";
export { readReplaySubject, type ReplaySubject } from "./replay-subject.query.ts";
