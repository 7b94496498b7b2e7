/**
 * The JSON bodies Crux delivers (`alert.firing`, `alert.resolved`,
 * `webhook.test`), built from stored rows and the public base URL of the API,
 * so a receiver can follow the links to the query that reproduces the numbers
 * and to example traces. Pure.
 */
import type { AlertEventRecord, AlertMetric, AlertRuleSpec } from "@crux/core";
import { slackBody, type WebhookEvent } from "./slack.ts";

export interface AlertEventInput extends AlertEventRecord {
  rule: Pick<AlertRuleSpec, "metric" | "condition" | "scope" | "windowMs" | "minSamples"> & { id: string; name: string };
}

/** The metrics endpoint that serves each metric's numbers (docs/api.md "Alerts and webhooks"). */
function metricsPath(metric: AlertMetric): { path: string; params: Record<string, string> } {
  switch (metric.kind) {
    case "failure_mode_rate":
      return { path: "/api/v1/metrics/failure-modes", params: { groupBy: "mode" } };
    case "failure_category_rate":
      return { path: "/api/v1/metrics/failure-modes", params: { groupBy: "category" } };
    case "success_rate":
      return { path: "/api/v1/metrics/success", params: {} };
    case "tokens_per_trace":
    case "cost_per_trace":
    case "error_rate":
      return { path: "/api/v1/metrics/agents", params: {} };
    case "cost_multiplier":
      return { path: "/api/v1/metrics/cost-multiplier", params: {} };
  }
}

function url(base: string, path: string, params: Record<string, string | null | undefined> = {}): string {
  // Relative to the base, so a public URL with a path prefix (https://host/crux) keeps it.
  const u = new URL(path.replace(/^\//, ""), base.endsWith("/") ? base : `${base}/`);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** The API query over the same scope and window as a reading. */
export function metricsQueryUrl(publicUrl: string, rule: AlertEventInput["rule"], window: { fromMs: number; toMs: number }): string {
  const { path, params } = metricsPath(rule.metric);
  return url(publicUrl, path, {
    ...params,
    service: rule.scope.service,
    agent: rule.scope.agent,
    from: new Date(window.fromMs).toISOString(),
    to: new Date(window.toMs).toISOString(),
  });
}

export function alertEventBody(event: AlertEventInput, publicUrl: string) {
  const window = { fromMs: event.windowFromMs, toMs: event.windowToMs };
  const previousWindow = { fromMs: window.fromMs - event.rule.windowMs, toMs: window.fromMs };
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    sequence: event.sequence,
    rule: event.rule,
    values: { current: event.current, previous: event.previous, change: event.change },
    window: { from: new Date(window.fromMs).toISOString(), to: new Date(window.toMs).toISOString() },
    links: {
      rule: url(publicUrl, `/api/v1/alert-rules/${event.rule.id}`),
      events: url(publicUrl, "/api/v1/alerts", { ruleId: event.rule.id }),
      query: metricsQueryUrl(publicUrl, event.rule, window),
      previousQuery: event.previous === null ? null : metricsQueryUrl(publicUrl, event.rule, previousWindow),
      exampleTraces: event.exampleTraceIds.map((id) => url(publicUrl, `/api/v1/traces/${id}`)),
    },
  };
}
export type AlertEventBody = ReturnType<typeof alertEventBody>;

export function testEventBody(id: string, webhook: { id: string; url: string }, at: Date) {
  return { id, type: "webhook.test" as const, createdAt: at.toISOString(), webhook, message: "Test event from Crux: this endpoint receives its alerts." };
}

const percent = (v: number | null) => (v === null ? "n/a" : String(Math.round(v * 10_000) / 10_000));

/** The body a webhook is sent: the event JSON, or its Slack incoming-webhook rendering. */
export function deliveryBody(body: AlertEventBody | ReturnType<typeof testEventBody>, slack: boolean): unknown {
  if (!slack) return body;
  if (body.type === "webhook.test") return slackBody({ id: body.id, type: body.type, message: body.message });
  const summary: WebhookEvent = {
    id: body.id,
    type: body.type,
    rule: body.rule.name,
    scope: [body.rule.scope.service ?? "every service", body.rule.scope.agent ?? "the system"].join(" / "),
    value: `${percent(body.values.current.value)} (${body.values.current.numerator} / ${body.values.current.denominator})`,
    window: `${body.window.from} – ${body.window.to}`,
    query: body.links.query,
    traces: body.links.exampleTraces.join("\n") || "none",
  };
  return slackBody(summary);
}
