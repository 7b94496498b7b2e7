/**
 * The API's wire shapes, as types only: every shape the UI reads comes from @crux/contracts
 * (no zod code reaches the bundle; the server validated what it sends).
 */
import type {
  AgentUsage,
  Handoff,
  SpanNode,
  TraceAttributionResponse,
  TraceDetail,
  TraceFindingsResponse,
  TraceScoresResponse,
  TraceLabelsBody,
  TraceLabelsResponse,
  TraceList,
  TraceListQuery,
  TraceTrajectoriesResponse,
  TraceVerdictsResponse,
  ValidationResponse,
  FailureModesMetrics,
  AgentsMetrics,
  CostMultiplierMetrics,
  SuccessMetrics,
  AlertRuleList,
  AlertRuleBody,
  AlertList,
  WebhookList,
  WebhookBody,
  WebhookWithSecret,
  DeliveryList,
  JudgeSettingsResponse,
  JudgeCallList,
  ExperimentList,
  ExperimentReport,
  ExperimentProgress,
  StartResponse,
  Replay,
  ReplayList,
} from "@crux/contracts";
import type { z } from "zod";

export type { AgentUsage, Handoff, SpanNode };
export type TraceListPage = z.output<typeof TraceList>;
export type TraceListFilters = Partial<Record<Exclude<keyof z.input<typeof TraceListQuery>, "cursor" | "limit">, string>>;
export type TraceDetailBody = z.output<typeof TraceDetail>;
export type FindingsBody = z.output<typeof TraceFindingsResponse>;
export type AttributionBody = z.output<typeof TraceAttributionResponse>;
export type TrajectoriesBody = z.output<typeof TraceTrajectoriesResponse>;
export type TrajectoryStep = TrajectoriesBody["items"][number]["steps"][number];
export type VerdictsBody = z.output<typeof TraceVerdictsResponse>;
export type ScoresBody = z.output<typeof TraceScoresResponse>;
export type LabelsBody = z.output<typeof TraceLabelsResponse>;
export type LabelsInput = z.input<typeof TraceLabelsBody>;
export type ValidationBody = z.output<typeof ValidationResponse>;
export type FailureModesBody = z.output<typeof FailureModesMetrics>;
export type AgentsBody = z.output<typeof AgentsMetrics>;
export type CostMultiplierBody = z.output<typeof CostMultiplierMetrics>;
export type SuccessBody = z.output<typeof SuccessMetrics>;
export type AlertRules = z.output<typeof AlertRuleList>;
export type AlertRuleInput = z.input<typeof AlertRuleBody>;
export type Alerts = z.output<typeof AlertList>;
export type Webhooks = z.output<typeof WebhookList>;
export type WebhookInput = z.input<typeof WebhookBody>;
export type WebhookCreated = z.output<typeof WebhookWithSecret>;
export type Deliveries = z.output<typeof DeliveryList>;
export type JudgeSettingsBody = z.output<typeof JudgeSettingsResponse>;
export type JudgeCalls = z.output<typeof JudgeCallList>;
export type Experiments = z.output<typeof ExperimentList>;
export type ExperimentItem = Experiments["items"][number];
export type ExperimentReportBody = z.output<typeof ExperimentReport>;
export type VariantReportBody = ExperimentReportBody["variants"][number];
export type ExperimentInterval = NonNullable<VariantReportBody["successRate"]>;
export type ExperimentProgressBody = z.output<typeof ExperimentProgress>;
export type StartBody = z.output<typeof StartResponse>;
export type ReplayBody = z.output<typeof Replay>;
export type ReplayListBody = z.output<typeof ReplayList>;
