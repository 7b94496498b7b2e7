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
export {
  insertSpanBatch,
  defaultInsertChunkSize,
  insertSpanBatchStatementName,
  type InsertSpanBatchOptions,
  type InsertSpanBatchResult,
} from "./traces/insert-spans.ts";
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
export { listVerdicts, listVerdictsPage, insertVerdict, retryFailedVerdicts, type VerdictKey, type VerdictRow } from "./judges/verdicts.ts";
export { takeJudgeLease, releaseJudgeLease, type JudgeLeaseTake } from "./judges/leases.ts";
export { requestJudge, clearJudgeRequest, deferJudgeRequest, listJudgeRequests, type JudgeRequest, type JudgeRequestOptions } from "./stages/judge-requests.ts";
export {
  putTraceLabels,
  getTraceLabels,
  checkLabelTargets,
  listTraceLabelHistory,
  type TraceLabelsInput,
  type StoredTraceLabels,
  type ReplacedTraceLabels,
} from "./traces/labels.ts";
export { listTraceFindingsWithJudges, listJudgeAttributions, type TraceFindingItem, type JudgeAttributionRow } from "./judges/reads.ts";
export { sqlStateError, isStorageUnavailable, isDataRejected, describeStorageError } from "./errors.ts";
export * as schema from "./schema/scores.ts";
export * from "./scores/index.ts";
export * from "./alerts/index.ts";
export * from "./experiments/index.ts";
export * from "./judges/index.ts";
export { createSecretBox, type SecretBox } from "./secret-box.ts";
export { renormalizeStoredSpans, type RenormalizeOptions, type RenormalizeResult } from "./traces/renormalize.ts";
