export { persistTraceScores, persistTraceScoreSets, getStoredScoreInputs, type PersistOptions, type ScoreSetWrite } from "./persist.ts";
export { readScoreJobState, type ScoreJobState } from "./score-state.ts";
export { rebuildScoreRollups } from "./rollups.ts";
export { compactScoreRollups, type CompactionResult } from "./compaction.ts";
export { loadScoringConfig, listEffectivePrices, type EffectivePrice, getOutcomeOverride, setOutcomeOverride, findBaselineRun } from "./scoring-config.ts";
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
} from "./config.repository.ts";
export { type MetricsFilter } from "./metrics-filter.ts";
export {
  failureModeMetrics,
  configuredCoverage,
  type FailureModeGroupBy,
  type FailureModeOptions,
  type Measurement,
  type FailureModeRate,
  type FailureModesResult,
} from "./failure-modes.query.ts";
export { type FindingSourceFilter } from "./judge-rates.ts";
export {
  validationMetrics,
  type ValidationScope,
  type ValidationResult,
  type ModeAgreement,
  type AttributionAccuracy,
  type PickAccuracy,
} from "./validation.query.ts";
export { agentMetrics, type AgentMetrics, type AgentSeriesPoint, type AgentUsageTotals, type AgentsResult } from "./agents.query.ts";
export {
  multiplierMetrics,
  successInputs,
  type OutcomeSourceCounts,
  type BaselineSource,
  type MultiplierAggregate,
  type MultiplierResult,
  type TaskMultiplier,
} from "./outcomes.query.ts";
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
} from "./trace-reads.ts";
