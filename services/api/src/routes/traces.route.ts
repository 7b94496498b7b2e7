/** GET /api/v1/traces and GET /api/v1/traces/:traceId. Thin: validate, call db + core, shape. */
import { attributeAgents } from "@crux/core";
import { getTrace, getTraceScores, listTraces, type Database } from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";
import { isoToNs, nsToIso } from "../time.ts";
import { IsoTime, TraceId, cursorParam, limitParam, text } from "../validation.ts";
import { TraceDetailDto, TraceListDto } from "./trace.schema.ts";
import { agentUsageView, spanTreeView, traceSummaryView } from "./trace.view.ts";

const ListQuery = z
  .strictObject({
    service: text().optional(),
    agent: text().optional(),
    from: IsoTime.optional(),
    to: IsoTime.optional(),
    hasError: z
      .enum(["true", "false"])
      .transform((v) => v === "true")
      .optional(),
    cursor: cursorParam.optional(),
    limit: limitParam(),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: "'from' must not be after 'to'", path: ["from"] });

export function tracesRoutes(deps: { database: Database }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      "/traces",
      {
        schema: {
          summary: "List traces, newest first",
          description:
            "Filters: service, agent (any agent in the trace), from/to (ISO 8601, on the trace start), hasError. Keyset pagination with the opaque `cursor` from the previous page.",
          tags: ["traces"],
          querystring: ListQuery,
          response: { 200: TraceListDto, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (req) => {
        const q = req.query;
        const page = await listTraces(deps.database, req.projectId, {
          service: q.service,
          agent: q.agent,
          fromNs: q.from ? isoToNs(q.from) : undefined,
          toNs: q.to ? isoToNs(q.to) : undefined,
          hasError: q.hasError,
          cursor: q.cursor,
          limit: q.limit,
        });
        return { items: page.items.map(traceSummaryView), nextCursor: page.nextCursor };
      },
    );

    r.get(
      "/traces/:traceId",
      {
        schema: {
          summary: "One trace: span tree with normalized fields, per-agent token totals and handoffs",
          description:
            "`roots` nests at most 64 levels; deeper spans follow as further `roots` entries (see `childrenInRoots`). Per-agent and total `cost` is the priced cost of /traces/{traceId}/scores once the trace is scored (`costSource`).",
          tags: ["traces"],
          params: z.object({ traceId: TraceId }),
          response: { 200: TraceDetailDto, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (req) => {
        const [found, scores] = await Promise.all([
          getTrace(deps.database, req.projectId, req.params.traceId),
          getTraceScores(deps.database, req.projectId, req.params.traceId),
        ]);
        if (!found) throw new ApiError(404, "not_found", `trace ${req.params.traceId} not found`);
        const attribution = attributeAgents(found.spans);
        const t = attribution.totals;
        // One cost per agent across the API: the worker's priced figure once scored (what /scores serves).
        const scoredCost = scores ? new Map(scores.agents.map((a) => [a.agent, a.costUsd])) : null;
        const agents = agentUsageView(attribution).map((a) => (scoredCost ? { ...a, cost: scoredCost.get(a.name) ?? null } : a));
        const roots = spanTreeView(found.spans, attribution);
        // Building and serializing a trace of 10,000 spans each take a few hundred ms: a turn of the
        // event loop in between keeps other requests moving.
        if (found.spans.length > 1_000) await new Promise<void>((resolve) => setImmediate(resolve));
        return {
          trace: traceSummaryView(found.trace),
          agents,
          costSource: scores ? ("scored" as const) : ("reported" as const),
          totals: { ...t, totalTokens: t.inputTokens + t.outputTokens, cost: scores ? scores.summary.costUsd : t.cost },
          handoffs: attribution.handoffs.map((h) => ({ from: h.from, to: h.to, spanId: h.spanId, via: h.via, time: nsToIso(h.startNs) })),
          roots,
          orphanSpanIds: attribution.orphans,
        };
      },
    );
  };
}
