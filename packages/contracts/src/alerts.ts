/**
 * Alert rules, alert events, webhooks and their deliveries
 * (/api/v1/alert-rules, /alerts, /webhooks, /deliveries). The rule shape is
 * packages/core's AlertRuleSpec (evaluated there), plus a name, the webhooks
 * to notify and whether it is enabled.
 */
import { z } from "zod";
import { mastCategories, mastModeIds, type AlertMetric as CoreAlertMetric, type AlertMetricKind } from "@crux/core/vocabulary";
import { PageQuery, cursorParam, limitParam, nextCursorField, outboundUrl, text } from "./request.ts";

/** One of the MAST modes (the one list, validation.ts): a rule on any other id could never measure anything. */
const FailureMode = z.enum(mastModeIds, { error: `must be one of the MAST modes: ${mastModeIds.join(", ")}` });
const validatedOnly = z
  .boolean()
  .default(false)
  .describe(
    "Decide only on a validated rate: while a judge counted in the rate is not validated for the mode against human labels (the rate's `validated: false` in GET /metrics/failure-modes), the rule decides nothing. Code-only rates are validated",
  );

/** One schema per metric kind of core's AlertMetric (declared there): a kind added in core and missing here does not compile. */
const alertMetricShapes = {
  failure_mode_rate: z.strictObject({ kind: z.literal("failure_mode_rate"), mode: FailureMode, validatedOnly }),
  failure_category_rate: z.strictObject({ kind: z.literal("failure_category_rate"), category: z.enum(mastCategories), validatedOnly }),
  success_rate: z.strictObject({ kind: z.literal("success_rate") }),
  tokens_per_trace: z.strictObject({ kind: z.literal("tokens_per_trace") }),
  cost_per_trace: z.strictObject({ kind: z.literal("cost_per_trace") }),
  cost_multiplier: z.strictObject({ kind: z.literal("cost_multiplier") }),
  error_rate: z.strictObject({ kind: z.literal("error_rate") }),
} satisfies { [K in AlertMetricKind]: z.ZodType<Extract<CoreAlertMetric, { kind: K }>> };

export const AlertMetric = z.discriminatedUnion("kind", [
  alertMetricShapes.failure_mode_rate,
  alertMetricShapes.failure_category_rate,
  alertMetricShapes.success_rate,
  alertMetricShapes.tokens_per_trace,
  alertMetricShapes.cost_per_trace,
  alertMetricShapes.cost_multiplier,
  alertMetricShapes.error_rate,
]);
export type AlertMetric = z.infer<typeof AlertMetric>;

export const AlertCondition = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("threshold"), op: z.enum(["above", "below"]), value: z.number().finite() }),
  z.strictObject({
    kind: z.literal("change"),
    direction: z.enum(["rise", "drop"]),
    by: z.number().positive().max(1000).describe("Relative change against the previous window: 0.5 = 50 %"),
  }),
]);

const minWindowMs = 60_000;
const maxWindowMs = 30 * 24 * 3_600_000;

export const AlertRuleBody = z.strictObject({
  name: text(200),
  enabled: z.boolean().default(true),
  scope: z
    .strictObject({
      service: text().nullable().default(null).describe("Only traces of this service; null = every service"),
      agent: text().nullable().default(null).describe("One agent: its findings, usage and errors over the traces it took part in; null = the system"),
    })
    .default({ service: null, agent: null }),
  metric: AlertMetric,
  condition: AlertCondition,
  windowMs: z.number().int().min(minWindowMs).max(maxWindowMs).describe("Window length in ms (1 minute to 30 days); the trace start decides the window"),
  minSamples: z.number().int().min(1).max(1_000_000).default(10).describe("Fewer traces (or runs) in a window decide nothing"),
  webhookIds: z.array(z.uuid()).max(20).default([]).describe("Webhooks notified of each firing and resolved event"),
});
export type AlertRuleBody = z.infer<typeof AlertRuleBody>;

export const AlertRule = AlertRuleBody.extend({
  id: z.string(),
  state: z.enum(["ok", "firing"]),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastEvaluatedAt: z.string().nullable(),
});

export const AlertRuleList = z.object({ items: z.array(AlertRule), nextCursor: nextCursorField() });

const Reading = z.object({
  value: z.number().nullable(),
  numerator: z.number(),
  denominator: z.number(),
  samples: z.number(),
});

export const AlertEventType = z.enum(["alert.firing", "alert.resolved"]);

export const AlertEvent = z.object({
  id: z.string().describe("Event id, also the webhook-id header of its deliveries"),
  type: AlertEventType,
  ruleId: z.string(),
  ruleName: z.string(),
  sequence: z.number().describe("The rule's transition number: 1 = its first firing"),
  current: Reading,
  previous: Reading.nullable(),
  change: z.number().nullable(),
  window: z.object({ from: z.string(), to: z.string() }),
  exampleTraceIds: z.array(z.string()),
  createdAt: z.string(),
});

export const AlertsQuery = PageQuery.extend({
  ruleId: z.uuid().optional().describe("Only the events of this rule"),
  type: AlertEventType.optional(),
});
export const AlertList = z.object({ items: z.array(AlertEvent), nextCursor: nextCursorField() });

export const WebhookBody = z.strictObject({
  url: outboundUrl(2048),
  description: z.string().max(500).default(""),
  enabled: z.boolean().default(true),
  slack: z.boolean().default(false).describe("Send a Slack incoming-webhook body (text, blocks) instead of the event JSON"),
  allowPrivateTargets: z
    .boolean()
    .default(false)
    .describe(
      "Ask to reach loopback or private addresses (a receiver on this network): honoured only as far as the service allows (CRUX_ALLOW_PRIVATE_TARGETS); checked at connect time",
    ),
});
export type WebhookBody = z.infer<typeof WebhookBody>;

export const Webhook = WebhookBody.extend({
  id: z.string(),
  secretPrefix: z.string().describe("The first characters of the signing secret, to tell secrets apart; the secret itself is shown once"),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const WebhookWithSecret = Webhook.extend({
  secret: z.string().describe("whsec_ signing secret (Standard Webhooks). Shown only in this answer: store it now"),
});
export const WebhookList = z.object({ items: z.array(Webhook), nextCursor: nextCursorField() });

export const DeliveryStatus = z.enum(["pending", "delivered", "failed"]);

export const DeliveryAttempt = z.object({
  attempt: z.number(),
  startedAt: z.string(),
  status: z.number().nullable().describe("HTTP status; null when no answer came"),
  ok: z.boolean(),
  failureKind: z.string().nullable(),
  message: z.string().nullable(),
  durationMs: z.number(),
  responseExcerpt: z.string(),
});

export const Delivery = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: DeliveryStatus,
  attempts: z.array(DeliveryAttempt),
  nextAttemptAt: z.string().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const DeliveriesQuery = z.strictObject({
  cursor: cursorParam.optional(),
  limit: limitParam(100, 20),
  status: DeliveryStatus.optional(),
});
export const DeliveryList = z.object({ items: z.array(Delivery), nextCursor: nextCursorField() });
