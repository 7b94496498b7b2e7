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
