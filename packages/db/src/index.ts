// The database and its lifecycle
export {
  createDatabase,
  DataDirLockedError,
  dataDirLockFileName,
  defaultPoolSize,
  type CreateDatabaseOptions,
  type CruxDb,
  type Database,
  type PgliteDatabase,
  type PostgresDatabase,
} from "./client.ts";
export { migrate, assertSchemaCurrent, waitForDatabase, defaultMigrationsFolder, type MigrateOptions, type WaitForDatabaseOptions } from "./migrate.ts";
export { sqlStateError, isStorageUnavailable, isStatementTimedOut, isDataRejected, describeStorageError } from "./errors.ts";
export * as schema from "./schema/index.ts";
export { createSecretBox, type SecretBox } from "./secret-box.ts";

// Traces: the ingest write, reads, labels, re-normalization
export {
  insertSpanBatch,
  defaultInsertChunkSize,
  insertSpanBatchStatementName,
  type InsertSpanBatchOptions,
  type InsertSpanBatchResult,
} from "./traces/insert-spans.ts";
export {
  listTraces,
  getTrace,
  getTraceSummary,
  listTraceSpans,
  encodeTraceCursor,
  decodeTraceCursor,
  maxListTracesLimit,
  type ListTracesQuery,
  type TraceListRow,
  type TraceSummary,
} from "./traces/reads.ts";
export {
  putTraceLabels,
  getTraceLabels,
  checkLabelTargets,
  listTraceLabelHistory,
  type TraceLabelsInput,
  type StoredTraceLabels,
  type ReplacedTraceLabels,
} from "./traces/labels.ts";
export { renormalizeStoredSpans, type RenormalizeOptions, type RenormalizeResult } from "./traces/renormalize.ts";

// Stages: settle, score and judge requests
export {
  listDirtyTraces,
  listSpanIds,
  markTraceSettled,
  readSettleState,
  type SettleState,
  updateTraceAgents,
  listScoreRequests,
  clearScoreRequest,
  requestRescore,
  type DirtyTrace,
  type ScoreRequest,
} from "./stages/settle.ts";
export { requestJudge, clearJudgeRequest, deferJudgeRequest, listJudgeRequests, type JudgeRequest, type JudgeRequestOptions } from "./stages/judge-requests.ts";
export { readScoreJobState, type ScoreJobState } from "./stages/score-state.ts";

// Score sets: writes and reads
export { persistTraceScores, persistTraceScoreSets, getStoredScoreInputs, type PersistOptions, type ScoreSetWrite } from "./scores/persist.ts";
export {
  traceScoreStatus,
  getTraceScores,
  getTraceScoring,
  listTraceFindings,
  listTraceAttributions,
  listTraceHandoffs,
  listTraceTrajectories,
  type TraceScoreStatus,
  type TraceScoreSummary,
  type TraceAgentUsageRow,
  type TraceFindingRow,
  type TraceHandoffRow,
  type TraceAttributionRow,
  type TraceScoring,
  type StoredTrajectoryStep,
} from "./scores/trace-reads.ts";

// Rollups
export { rebuildScoreRollups } from "./rollups/rollups.ts";
export { compactScoreRollups, type CompactionResult } from "./rollups/compaction.ts";

// Configuration: projects, API keys, scoring configuration
export {
  ensureProject,
  createApiKey,
  findActiveApiKey,
  touchApiKey,
  listApiKeys,
  rotateApiKey,
  revokeApiKey,
  countApiKeys,
  apiKeyPrefix,
  apiKeyScopes,
  isApiKeyScope,
  type ApiKeyScope,
  type ActiveApiKey,
  type ApiKeyListing,
} from "./config/api-keys.ts";
export {
  loadScoringConfig,
  listEffectivePrices,
  type EffectivePrice,
  getOutcomeOverride,
  setOutcomeOverride,
  findBaselineRun,
} from "./config/scoring-config.ts";
export {
  priceRepository,
  agentContractRepository,
  handoffContractRepository,
  milestoneSetRepository,
  baselineRepository,
  getProjectSettings,
  putProjectSettings,
  type ConfigRepository,
  type Stored,
  type PriceInput,
  type AgentContractInput,
  type HandoffContractInput,
  type MilestoneSetInput,
  type BaselineInput,
  type ProjectSettings,
} from "./config/config.repository.ts";

// Judges: verdicts, findings, settings, calls
export { listVerdicts, listVerdictsPage, insertVerdict, retryFailedVerdicts, type VerdictKey, type VerdictRow } from "./judges/verdicts.ts";
export { takeJudgeLease, releaseJudgeLease, type JudgeLeaseTake } from "./judges/leases.ts";
export { listTraceFindingsWithJudges, listJudgeAttributions, type TraceFindingItem, type JudgeAttributionRow } from "./judges/reads.ts";
export * from "./judges/index.ts";

// Metrics: the read models
export { type MetricsFilter } from "./metrics/filter.ts";
export {
  failureModeMetrics,
  configuredCoverage,
  type FailureModeGroupBy,
  type FailureModeOptions,
  type Measurement,
  type FailureModeRate,
  type FailureModesResult,
} from "./metrics/failure-modes.query.ts";
export { type FindingSourceFilter } from "./metrics/judge-rates.ts";
export {
  validationMetrics,
  type ValidationScope,
  type ValidationResult,
  type ModeAgreement,
  type AttributionAccuracy,
  type PickAccuracy,
} from "./metrics/validation.query.ts";
export { agentMetrics, type AgentMetrics, type AgentSeriesPoint, type AgentUsageTotals, type AgentsResult } from "./metrics/agents.query.ts";
export {
  multiplierMetrics,
  successInputs,
  type OutcomeSourceCounts,
  type BaselineSource,
  type MultiplierAggregate,
  type MultiplierResult,
  type TaskMultiplier,
} from "./metrics/outcomes.query.ts";

// Alerts
export * from "./alerts/index.ts";

// Experiments
export * from "./experiments/index.ts";
