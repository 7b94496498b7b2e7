/**
 * Alert rules, their events, webhooks and their deliveries (the alerts domain).
 * Ids are random UUIDs made by the repositories; project_id scopes every read
 * (no foreign key to projects).
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";

export const alertRules = pgTable(
  "alert_rules",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    name: text().notNull(),
    enabled: boolean().notNull(),
    serviceName: text(),
    agent: text(),
    /** AlertMetric (packages/core): { kind, mode?, category?, validatedOnly? }. */
    metric: jsonb().notNull(),
    /** AlertCondition: threshold or change against the previous window. */
    condition: jsonb().notNull(),
    windowMs: bigint({ mode: "number" }).notNull(),
    minSamples: integer().notNull(),
    webhookIds: text().array().notNull(),
    /** 'ok' | 'firing'; changed only together with `transitions` (compare-and-set, alerts/evaluation.ts). */
    state: text().notNull().default("ok"),
    /** Transitions so far; each event carries the number it made, unique per rule. */
    transitions: integer().notNull().default(0),
    lastEvaluatedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("alert_rules_project_idx").on(t.projectId, t.id), check("alert_rules_state", sql`${t.state} IN ('ok', 'firing')`)],
);

export const alertEvents = pgTable(
  "alert_events",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    ruleId: text()
      .notNull()
      .references(() => alertRules.id, { onDelete: "cascade" }),
    /** The rule's transition number; (rule, sequence) unique: one event per transition however many evaluations race. */
    sequence: integer().notNull(),
    /** 'alert.firing' | 'alert.resolved' */
    type: text().notNull(),
    /** The rule as it was evaluated (name, scope, metric, condition, window, minSamples). */
    rule: jsonb().notNull(),
    value: doublePrecision(),
    numerator: doublePrecision().notNull(),
    denominator: doublePrecision().notNull(),
    samples: integer().notNull(),
    /** The previous window's reading (change conditions), or null. */
    previous: jsonb(),
    change: doublePrecision(),
    windowFromMs: bigint({ mode: "number" }).notNull(),
    windowToMs: bigint({ mode: "number" }).notNull(),
    exampleTraceIds: text().array().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("alert_events_rule_sequence_uq").on(t.ruleId, t.sequence),
    index("alert_events_project_created_idx").on(t.projectId, t.createdAt, t.id),
    check("alert_events_type", sql`${t.type} IN ('alert.firing', 'alert.resolved')`),
  ],
);

export const webhooks = pgTable(
  "webhooks",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    url: text().notNull(),
    description: text().notNull(),
    enabled: boolean().notNull(),
    slack: boolean().notNull(),
    /** Loopback, link-local and private targets allowed for this webhook (set explicitly by the project). */
    allowPrivateTargets: boolean().notNull(),
    /**
     * The whsec_ signing secret, sealed when the service has CRUX_SECRET_KEY (alerts/webhook-secret.ts), as it
     * is without; never served after the answer that created or rotated it.
     */
    secret: text().notNull(),
    /** Its first 12 characters (whsec_ + 6), to tell secrets apart. */
    secretPrefix: text().notNull(),
    /** The secret a rotation replaced, stored as `secret` is: deliveries are signed with it too until previousSecretUntil. */
    previousSecret: text(),
    previousSecretUntil: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("webhooks_project_idx").on(t.projectId, t.id)],
);

/** One message (an event) to one webhook; sent until delivered or its attempts run out. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    webhookId: text()
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    /** The webhook-id header: the same on every attempt, so a receiver can deduplicate. */
    eventId: text().notNull(),
    eventType: text().notNull(),
    /** The event body, fixed at creation: every attempt sends the same JSON. */
    payload: jsonb().notNull(),
    /** 'pending' | 'delivered' | 'failed' */
    status: text().notNull(),
    /** Attempts of the current round (a manual retry starts a new round). */
    roundAttempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("webhook_deliveries_event_webhook_uq").on(t.eventId, t.webhookId),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt, t.id),
    index("webhook_deliveries_pending_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    check("webhook_deliveries_status", sql`${t.status} IN ('pending', 'delivered', 'failed')`),
  ],
);

/** Every attempt of every delivery, as it happened. */
export const webhookDeliveryAttempts = pgTable(
  "webhook_delivery_attempts",
  {
    deliveryId: text()
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    /** 1-based over the delivery's whole life (all rounds). */
    attempt: integer().notNull(),
    startedAt: timestamp({ withTimezone: true }).notNull(),
    status: integer(),
    ok: boolean().notNull(),
    failureKind: text(),
    message: text(),
    durationMs: doublePrecision().notNull(),
    responseExcerpt: text().notNull(),
  },
  (t) => [unique("webhook_delivery_attempts_uq").on(t.deliveryId, t.attempt)],
);
