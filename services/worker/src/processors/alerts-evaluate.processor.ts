/**
 * alerts.evaluate (scheduled, one run per tick across all workers): evaluates
 * every enabled rule over the stored scores with core's evaluateAlertRule and
 * records a transition as one event (recordAlertTransition: compare-and-set on
 * the rule's state, so evaluations that race make one event), then enqueues
 * its deliveries. Each tick also re-enqueues the deliveries still pending in
 * Postgres whose time has come: a lost delivery job, or one not enqueued
 * because the queue was down, is sent on the next tick.
 */
import { alertWindows, evaluateAlertRule, type ValidationBar } from "@crux/core";
import {
  describeStorageError,
  exampleTraceIds,
  getAlertRule,
  isStorageUnavailable,
  listDueDeliveries,
  listEnabledAlertRules,
  markAlertRuleEvaluated,
  readAlertMetric,
  recordAlertTransition,
  type Database,
  type StoredAlertRule,
} from "@crux/db";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { alertEventBody, deliveryBody } from "@crux/webhooks";

export interface AlertsEvaluateDeps {
  database: Database;
  queue: JobQueue;
  log: Logger;
  /** Base URL of the API for the links in payloads (CRUX_PUBLIC_URL). */
  publicUrl: string;
  /** The API's validation bar (CRUX_VALIDATION_*), for rules with validatedOnly; default kappa .6 on 20 labels. */
  validationBar?: ValidationBar;
  now?: () => number;
  /** Told each recorded event (the worker's metrics). */
  onEvent?: (type: "alert.firing" | "alert.resolved") => void;
}

const RULES_PER_PAGE = 100;
const DUE_DELIVERIES_PER_TICK = 1_000;

/** The rule as an event shows it (what was evaluated, not its state or webhooks). */
const ruleSnapshot = (r: StoredAlertRule) => ({
  id: r.id,
  name: r.name,
  scope: r.scope,
  metric: r.metric,
  condition: r.condition,
  windowMs: r.windowMs,
  minSamples: r.minSamples,
});

export function createAlertsEvaluateProcessor(deps: AlertsEvaluateDeps) {
  const now = deps.now ?? Date.now;

  async function enqueueDeliveries(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await deps.queue.enqueueMany(
        "webhook.deliver",
        ids.map((deliveryId) => ({ deliveryId })),
      );
    } catch (err) {
      // Still pending in Postgres: the next tick enqueues them.
      deps.log.warn({ deliveries: ids.length, error: describeStorageError(err).message }, "webhook deliveries not enqueued; the next evaluation retries");
    }
  }

  async function evaluateRule(rule: StoredAlertRule, atMs: number): Promise<"fired" | "resolved" | null> {
    const windows = alertWindows(rule.windowMs, atMs);
    const current = await readAlertMetric(deps.database, rule.projectId, rule.metric, rule.scope, windows.current, deps.validationBar);
    const previous =
      rule.condition.kind === "change"
        ? await readAlertMetric(deps.database, rule.projectId, rule.metric, rule.scope, windows.previous, deps.validationBar)
        : null;
    const decision = evaluateAlertRule(rule, current, previous, rule.state);
    await markAlertRuleEvaluated(deps.database, rule.id, new Date(atMs));
    if (decision.action === "none") return null;
    const examples = await exampleTraceIds(deps.database, rule.projectId, rule.metric, rule.scope, windows.current);
    const recorded = await recordAlertTransition(deps.database, {
      rule,
      to: decision.action === "fire" ? "firing" : "ok",
      current,
      previous,
      change: decision.change,
      window: windows.current,
      exampleTraceIds: examples,
      payloadOf: (event, webhook) => deliveryBody(alertEventBody({ ...event, rule: ruleSnapshot(rule) }, deps.publicUrl), webhook.slack),
    });
    if (recorded === null) {
      deps.log.debug({ ruleId: rule.id }, "alert transition made by another evaluation");
      return null;
    }
    deps.log.info(
      {
        ruleId: rule.id,
        projectId: rule.projectId,
        type: recorded.event.type,
        value: current.value,
        numerator: current.numerator,
        denominator: current.denominator,
      },
      "alert event",
    );
    deps.onEvent?.(recorded.event.type);
    await enqueueDeliveries(recorded.deliveryIds);
    return decision.action === "fire" ? "fired" : "resolved";
  }

  /** One rule now (alerts.evaluate-rule: created or replaced through the API); a deleted or disabled rule is skipped. */
  async function evaluateOneRule(projectId: string, ruleId: string): Promise<void> {
    const rule = await getAlertRule(deps.database, projectId, ruleId);
    if (rule === null || !rule.enabled) return;
    await evaluateRule(rule, now());
  }

  async function evaluateAlerts(): Promise<void> {
    const atMs = now();
    let after: string | null = null;
    let rules = 0;
    let events = 0;
    let failed = 0;
    for (;;) {
      const page: StoredAlertRule[] = await listEnabledAlertRules(deps.database, after, RULES_PER_PAGE);
      for (const rule of page) {
        rules++;
        try {
          if ((await evaluateRule(rule, atMs)) !== null) events++;
        } catch (err) {
          // Storage down fails the tick (the next one retries); anything else is this rule's problem only.
          if (isStorageUnavailable(err)) throw err;
          failed++;
          deps.log.error({ ruleId: rule.id, error: describeStorageError(err).message }, "alert rule evaluation failed");
        }
      }
      if (page.length < RULES_PER_PAGE) break;
      after = page[page.length - 1]!.id;
    }
    await enqueueDeliveries(await listDueDeliveries(deps.database, new Date(atMs), DUE_DELIVERIES_PER_TICK));
    deps.log.debug({ rules, events, failed }, "alert rules evaluated");
  }

  return { evaluateAlerts, evaluateOneRule };
}
