/**
 * Alert rules of a project (CRUD, keyset pages by id) and the evaluation's
 * writes: a transition is a compare-and-set on the rule's (state,
 * transitions), and its event, numbered by the new transition count, is
 * inserted in the same transaction with one pending delivery per webhook.
 * Two evaluations racing on one rule therefore make one event: the loser's
 * update matches no row (and the unique (rule, sequence) would refuse its
 * insert anyway).
 */
import { randomUUID } from "node:crypto";
import { PermanentError, type AlertCondition, type AlertEventRecord, type AlertMetric, type AlertState, type MetricReading } from "@crux/core";
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { afterIdCursor, nextIdCursor } from "../sql/cursor.ts";
import { alertEvents, alertRules, webhookDeliveries, webhooks } from "../schema/alerts.ts";
import { clampLimit } from "../sql/util.ts";

export interface AlertRuleInput {
  name: string;
  enabled: boolean;
  scope: { service: string | null; agent: string | null };
  metric: AlertMetric;
  condition: AlertCondition;
  windowMs: number;
  minSamples: number;
  webhookIds: string[];
}

export interface StoredAlertRule extends AlertRuleInput {
  id: string;
  projectId: string;
  state: AlertState;
  transitions: number;
  lastEvaluatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

type RuleRow = typeof alertRules.$inferSelect;

function ruleOf(r: RuleRow): StoredAlertRule {
  return {
    id: r.id,
    projectId: r.projectId,
    name: r.name,
    enabled: r.enabled,
    scope: { service: r.serviceName, agent: r.agent },
    metric: r.metric as AlertMetric,
    condition: r.condition as AlertCondition,
    windowMs: r.windowMs,
    minSamples: r.minSamples,
    webhookIds: r.webhookIds,
    state: r.state as AlertState,
    transitions: r.transitions,
    lastEvaluatedAt: r.lastEvaluatedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function columnsOf(input: AlertRuleInput) {
  return {
    name: input.name,
    enabled: input.enabled,
    serviceName: input.scope.service,
    agent: input.scope.agent,
    metric: input.metric,
    condition: input.condition,
    windowMs: input.windowMs,
    minSamples: input.minSamples,
    webhookIds: [...new Set(input.webhookIds)],
  };
}

/** A rule may only notify the project's own webhooks. */
async function assertWebhooksExist(database: Database, projectId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await database.db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.projectId, projectId), inArray(webhooks.id, ids)));
  const known = new Set(found.map((w) => w.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new PermanentError("invalid_request", `webhookIds: no webhook ${unknown.join(", ")} in this project`);
}

export async function createAlertRule(database: Database, projectId: string, input: AlertRuleInput): Promise<StoredAlertRule> {
  await assertWebhooksExist(database, projectId, input.webhookIds);
  const [row] = await database.db
    .insert(alertRules)
    .values({ id: randomUUID(), projectId, ...columnsOf(input) })
    .returning();
  return ruleOf(row!);
}

export async function getAlertRule(database: Database, projectId: string, id: string): Promise<StoredAlertRule | null> {
  const [row] = await database.db
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.projectId, projectId), eq(alertRules.id, id)));
  return row ? ruleOf(row) : null;
}

/** Replaces the rule's definition; its state and transition count stay (a firing rule keeps firing until it resolves). */
export async function replaceAlertRule(database: Database, projectId: string, id: string, input: AlertRuleInput): Promise<StoredAlertRule | null> {
  await assertWebhooksExist(database, projectId, input.webhookIds);
  const [row] = await database.db
    .update(alertRules)
    .set({ ...columnsOf(input), updatedAt: sql`now()` })
    .where(and(eq(alertRules.projectId, projectId), eq(alertRules.id, id)))
    .returning();
  return row ? ruleOf(row) : null;
}

export async function deleteAlertRule(database: Database, projectId: string, id: string): Promise<boolean> {
  const rows = await database.db
    .delete(alertRules)
    .where(and(eq(alertRules.projectId, projectId), eq(alertRules.id, id)))
    .returning({ id: alertRules.id });
  return rows.length > 0;
}

export async function listAlertRules(
  database: Database,
  projectId: string,
  page: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: StoredAlertRule[]; nextCursor: string | null }> {
  const limit = clampLimit(page.limit);
  const rows = await database.db
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.projectId, projectId), afterIdCursor(page.cursor, alertRules.id)))
    .orderBy(asc(alertRules.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit).map(ruleOf), nextCursor: nextIdCursor(rows, limit) };
}

/** Enabled rules of every project, a page at a time (the evaluation walks them all each tick). */
export async function listEnabledAlertRules(database: Database, afterId: string | null, limit: number): Promise<StoredAlertRule[]> {
  const rows = await database.db
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.enabled, true), afterId === null ? undefined : gt(alertRules.id, afterId)))
    .orderBy(asc(alertRules.id))
    .limit(limit);
  return rows.map(ruleOf);
}

export async function markAlertRuleEvaluated(database: Database, ruleId: string, at: Date): Promise<void> {
  await database.db.update(alertRules).set({ lastEvaluatedAt: at }).where(eq(alertRules.id, ruleId));
}

export interface AlertTransition {
  rule: StoredAlertRule;
  to: AlertState;
  current: MetricReading;
  previous: MetricReading | null;
  change: number | null;
  window: { fromMs: number; toMs: number };
  exampleTraceIds: string[];
  /** Builds the delivered body from the stored event (the payload is fixed at creation). */
  payloadOf: (event: StoredAlertEvent, webhook: { id: string; slack: boolean }) => unknown;
}

export interface StoredAlertEvent extends AlertEventRecord {
  projectId: string;
  ruleId: string;
  /** The rule as it was evaluated (name, scope, metric, condition, window, minimum samples). */
  rule: Record<string, unknown>;
}

/**
 * Moves the rule from the state it was read in to `to`, and records the event and its pending
 * deliveries, in one transaction. Null when another evaluation made the transition first.
 */
export async function recordAlertTransition(database: Database, t: AlertTransition): Promise<{ event: StoredAlertEvent; deliveryIds: string[] } | null> {
  return database.db.transaction(async (tx) => {
    const sequence = t.rule.transitions + 1;
    const moved = await tx
      .update(alertRules)
      .set({ state: t.to, transitions: sequence })
      .where(and(eq(alertRules.id, t.rule.id), eq(alertRules.state, t.rule.state), eq(alertRules.transitions, t.rule.transitions)))
      .returning({ id: alertRules.id });
    if (moved.length === 0) return null;
    const { rule } = t;
    const ruleSnapshot = {
      id: rule.id,
      name: rule.name,
      scope: rule.scope,
      metric: rule.metric,
      condition: rule.condition,
      windowMs: rule.windowMs,
      minSamples: rule.minSamples,
    };
    const [row] = await tx
      .insert(alertEvents)
      .values({
        id: randomUUID(),
        projectId: rule.projectId,
        ruleId: rule.id,
        sequence,
        type: t.to === "firing" ? "alert.firing" : "alert.resolved",
        rule: ruleSnapshot,
        value: t.current.value,
        numerator: t.current.numerator,
        denominator: t.current.denominator,
        samples: t.current.samples,
        previous: t.previous,
        change: t.change,
        windowFromMs: t.window.fromMs,
        windowToMs: t.window.toMs,
        exampleTraceIds: t.exampleTraceIds,
      })
      .returning();
    const event = eventOf(row!);
    const targets =
      rule.webhookIds.length === 0
        ? []
        : await tx
            .select({ id: webhooks.id, slack: webhooks.slack })
            .from(webhooks)
            .where(and(eq(webhooks.projectId, rule.projectId), eq(webhooks.enabled, true), inArray(webhooks.id, rule.webhookIds)));
    const deliveries = targets.map((w) => ({
      id: randomUUID(),
      projectId: rule.projectId,
      webhookId: w.id,
      eventId: event.id,
      eventType: event.type,
      payload: t.payloadOf(event, w),
      status: "pending",
      nextAttemptAt: sql`now()`,
    }));
    if (deliveries.length > 0) await tx.insert(webhookDeliveries).values(deliveries);
    return { event, deliveryIds: deliveries.map((d) => d.id) };
  });
}

type EventRow = typeof alertEvents.$inferSelect;

export function eventOf(r: EventRow): StoredAlertEvent {
  return {
    id: r.id,
    projectId: r.projectId,
    ruleId: r.ruleId,
    sequence: r.sequence,
    type: r.type as AlertEventRecord["type"],
    rule: r.rule as Record<string, unknown>,
    current: { value: r.value, numerator: r.numerator, denominator: r.denominator, samples: r.samples },
    previous: (r.previous as MetricReading | null) ?? null,
    change: r.change,
    windowFromMs: r.windowFromMs,
    windowToMs: r.windowToMs,
    exampleTraceIds: r.exampleTraceIds,
    createdAt: r.createdAt,
  };
}
