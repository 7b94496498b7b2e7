/**
 * /alert-rules (CRUD; a rule's webhooks must be the project's) and GET /alerts
 * (the firing and resolved events with their values, newest first). The
 * worker's alerts.evaluate job evaluates the rules; nothing here evaluates.
 */
import { type AlertEvent, AlertList, AlertRule, AlertRuleBody, AlertRuleList, AlertsQuery, ConfigId, PageQuery } from "@crux/contracts";
import {
  createAlertRule,
  deleteAlertRule,
  getAlertRule,
  listAlertEvents,
  listAlertRules,
  replaceAlertRule,
  type Database,
  type StoredAlertEvent,
  type StoredAlertRule,
} from "@crux/db";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";

const IdParams = z.object({ id: ConfigId });
const errors = { 400: ErrorBody, 401: ErrorBody };
const iso = (ms: number) => new Date(ms).toISOString();

function ruleView(r: StoredAlertRule): z.infer<typeof AlertRule> {
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    scope: r.scope,
    // Stored as the body schema parsed it (defaults filled), so it has the wire shape.
    metric: r.metric as z.infer<typeof AlertRule>["metric"],
    condition: r.condition,
    windowMs: r.windowMs,
    minSamples: r.minSamples,
    webhookIds: r.webhookIds,
    state: r.state,
    lastEvaluatedAt: r.lastEvaluatedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

function eventView(e: StoredAlertEvent): z.infer<typeof AlertEvent> {
  return {
    id: e.id,
    type: e.type,
    ruleId: e.ruleId,
    ruleName: String(e.rule.name ?? ""),
    sequence: e.sequence,
    current: e.current,
    previous: e.previous,
    change: e.change,
    window: { from: iso(e.windowFromMs), to: iso(e.windowToMs) },
    exampleTraceIds: e.exampleTraceIds,
    createdAt: e.createdAt.toISOString(),
  };
}

const toInput = (body: AlertRuleBody) => ({ ...body, scope: { service: body.scope.service, agent: body.scope.agent } });

export function alertsRoutes(deps: { database: Database; queue?: JobQueue | undefined; log: Logger }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;
    const notFound = (id: string) => new ApiError("not_found", `alert rule ${id} not found`);
    /** A new or replaced rule is evaluated at once, not on the next tick; if the queue is down, the next tick does it. */
    async function evaluateNow(rule: StoredAlertRule): Promise<void> {
      if (!deps.queue || !rule.enabled) return;
      await deps.queue.enqueue("alerts.evaluate-rule", { projectId: rule.projectId, ruleId: rule.id }).catch((err: unknown) => {
        deps.log.warn(
          { ruleId: rule.id, error: err instanceof Error ? err.message.slice(0, 300) : String(err) },
          "alert rule evaluation not enqueued; the next tick evaluates it",
        );
      });
    }

    r.get(
      "/alert-rules",
      { schema: { summary: "List alert rules", tags: ["alerts"], querystring: PageQuery, response: { 200: AlertRuleList, ...errors } } },
      async (req) => {
        const page = await listAlertRules(db, req.projectId, req.query);
        return { items: page.items.map(ruleView), nextCursor: page.nextCursor };
      },
    );
    r.post(
      "/alert-rules",
      {
        schema: {
          summary: "Create an alert rule",
          description:
            "A metric over a scope (project, optionally a service, optionally one agent) and a window, a condition (threshold, or relative rise or drop against the previous window) and the minimum sample size per window. Fires once when the condition starts to hold, resolves once when it stops.",
          tags: ["alerts"],
          body: AlertRuleBody,
          response: { 201: AlertRule, ...errors },
        },
      },
      async (req, reply) => {
        const rule = await createAlertRule(db, req.projectId, toInput(req.body));
        await evaluateNow(rule);
        return reply.code(201).send(ruleView(rule));
      },
    );
    r.get(
      "/alert-rules/:id",
      { schema: { summary: "One alert rule, with its state", tags: ["alerts"], params: IdParams, response: { 200: AlertRule, ...errors, 404: ErrorBody } } },
      async (req) => {
        const rule = await getAlertRule(db, req.projectId, req.params.id);
        if (!rule) throw notFound(req.params.id);
        return ruleView(rule);
      },
    );
    r.put(
      "/alert-rules/:id",
      {
        schema: {
          summary: "Replace an alert rule (its state is kept)",
          tags: ["alerts"],
          params: IdParams,
          body: AlertRuleBody,
          response: { 200: AlertRule, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        const rule = await replaceAlertRule(db, req.projectId, req.params.id, toInput(req.body));
        if (!rule) throw notFound(req.params.id);
        await evaluateNow(rule);
        return ruleView(rule);
      },
    );
    r.delete(
      "/alert-rules/:id",
      {
        schema: { summary: "Delete an alert rule and its events", tags: ["alerts"], params: IdParams, response: { 204: z.null(), ...errors, 404: ErrorBody } },
      },
      async (req, reply) => {
        if (!(await deleteAlertRule(db, req.projectId, req.params.id))) throw notFound(req.params.id);
        return reply.code(204).send(null);
      },
    );

    r.get(
      "/alerts",
      {
        schema: {
          summary: "Alert events (firing and resolved) with their values, newest first",
          tags: ["alerts"],
          querystring: AlertsQuery,
          response: { 200: AlertList, ...errors },
        },
      },
      async (req) => {
        const page = await listAlertEvents(db, req.projectId, req.query);
        return { items: page.items.map(eventView), nextCursor: page.nextCursor };
      },
    );
  };
}
