/**
 * @crux/contracts: the REST API's wire contracts as zod schemas (with their
 * inferred types): request and response bodies of every endpoint, the error
 * codes and their HTTP status, id formats, and the shared shapes (per-agent
 * usage, handoff, cost). Pure: zod only, no I/O. services/api validates and
 * serializes with them; a client can parse with them.
 */
export { ConfigId, SpanId, TraceId } from "./ids.ts";
export { ErrorBody, ErrorCode, errorRetryAfterSeconds, errorStatus, isErrorCode, type ErrorStatus } from "./errors.ts";
export { CostUsd, ReportedCostUsd, costUsdMeaning } from "./cost.ts";
export { AgentUsage, Handoff, TokenCounts, TraceTotals } from "./usage.ts";
export { IsoTime, JsonValue, PageQuery, cursorParam, limitParam, text } from "./request.ts";
export { RunOutcome, SpanNode, TraceDetail, TraceList, TraceListItem, TraceListQuery, TraceScoring, TraceSummary } from "./traces.ts";
export {
  Attribution,
  Finding,
  OutcomeBody,
  OutcomeResponse,
  Scores,
  Step,
  MethodAccuracy,
  TraceAttributionResponse,
  TraceFinding,
  TraceFindingsResponse,
  TraceHandoffsResponse,
  TraceScoresResponse,
  TraceTrajectoriesResponse,
  type ErrorPath,
  type MilestoneDetail,
} from "./scores.ts";
export {
  AgentsMetrics,
  AgentsMetricsQuery,
  BucketParam,
  CostMultiplierMetrics,
  CostMultiplierQuery,
  SuccessMetrics,
  SuccessQuery,
  Window,
  WindowQuery,
  type Bucket,
} from "./metrics.ts";
export { FailureModeRate, FailureModesGroupBy, FailureModesMetrics, FailureModesQuery, FindingSourceKind, Measurement } from "./failure-modes.ts";
export { AgentContractBody, BaselineBody, ConfigMeta, EffectivePrice, HandoffContractBody, MilestoneSetBody, PriceBody, Settings } from "./config.ts";
export { JudgeAttribution, JudgeCallRecord, JudgeFinding, JudgeKind, JudgeProvider, JudgeVerdictResult, type JudgeModelSettings } from "./judges.ts";
export {
  AlertCondition,
  AlertEvent,
  AlertEventType,
  AlertList,
  AlertMetric,
  AlertRule,
  AlertRuleBody,
  AlertRuleList,
  AlertsQuery,
  DeliveriesQuery,
  Delivery,
  DeliveryAttempt,
  DeliveryList,
  DeliveryStatus,
  Webhook,
  WebhookBody,
  WebhookList,
  WebhookWithSecret,
} from "./alerts.ts";
export {
  FindingSourceFilter,
  TraceLabelHistoryResponse,
  TraceLabels,
  TraceLabelsBody,
  TraceLabelsResponse,
  ValidationQuery,
  ValidationResponse,
  mastModeIds,
} from "./validation.ts";
export {
  JudgeCallItem,
  JudgeCallList,
  JudgeCallsQuery,
  JudgeRequestResponse,
  JudgeSettingsBody,
  JudgeSettingsResponse,
  TraceVerdict,
  TraceVerdictsResponse,
} from "./judge-settings.ts";
export {
  AblationsBody,
  AblationsResponse,
  Dataset,
  DatasetBody,
  DatasetItem,
  DatasetItemBody,
  DatasetItemList,
  DatasetItemsBody,
  DatasetItemsQuery,
  DatasetList,
  Directive,
  Experiment,
  ExperimentBody,
  ExperimentList,
  ExperimentProgress,
  ExperimentReport,
  ExperimentSettings,
  ExperimentStatus,
  FailureStage,
  ModeComparison,
  ModeComparisonQuery,
  RunRequest,
  Runner,
  RunnerBody,
  RunnerList,
  RunnerWithSecret,
  ShipBar,
  StartResponse,
  ValueKind,
  Variant,
  VariantBody,
  VariantReport,
  maxDatasetItems,
  maxItemsPerRequest,
  maxVariants,
} from "./experiments.ts";
export {
  Replay,
  ReplayBody,
  ReplayCorrectionBody,
  ReplayList,
  ReplayReport,
  ReplayRunRequest,
  defaultReplayTrials,
  maxReplayCorrections,
  maxReplayTrials,
} from "./replays.ts";
