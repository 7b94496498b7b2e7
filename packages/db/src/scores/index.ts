export { persistTraceScores, persistTraceScoreSets, getStoredScoreInputs, type PersistOptions, type ScoreSetWrite } from "./persist.ts";
export { readScoreJobState, type ScoreJobState } from "../stages/score-state.ts";
export { rebuildScoreRollups } from "../rollups/rollups.ts";
export { compactScoreRollups, type CompactionResult } from "../rollups/compaction.ts";
export { loadScoringConfig, listEffectivePrices, type EffectivePrice, getOutcomeOverride, setOutcomeOverride, findBaselineRun } from "../config/scoring-config.ts";
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
} from "../config/config.repository.ts";
export { type MetricsFilter } from "../metrics/filter.ts";
export {
  failureModeMetrics,
  configuredCoverage,
  type FailureModeGroupBy,
  type FailureModeOptions,
  type Measurement,
  type FailureModeRate,
  type FailureModesResult,
} from "../metrics/failure-modes.query.ts";
export { type FindingSourceFilter } from "../metrics/judge-rates.ts";
export {
  validationMetrics,
  type ValidationScope,
  type ValidationResult,
  type ModeAgreement,
  type AttributionAccuracy,
  type PickAccuracy,
} from "../metrics/validation.query.ts";
export { agentMetrics, type AgentMetrics, type AgentSeriesPoint, type AgentUsageTotals, type AgentsResult } from "../metrics/agents.query.ts";
export {
  multiplierMetrics,
  successInputs,
  type OutcomeSourceCounts,
  type BaselineSource,
  type MultiplierAggregate,
  type MultiplierResult,
  type TaskMultiplier,
} from "../metrics/outcomes.query.ts";
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
