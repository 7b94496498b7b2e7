/**
 * GET /api/v1/traces and GET /api/v1/traces/:traceId. Thin: validate, call db
 * (+ core for the span tree), shape. The detail's per-agent usage, totals,
 * handoffs and attributions are the stored score set, never recomputed here.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { TraceDetail, TraceId, TraceList, TraceListQuery } from "@crux/contracts";
import { attributeAgents } from "@crux/core";
import { getTrace, getTraceScoring, listTraces, type Database } from "@crux/db";
import { addContent } from "@crux/otlp";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";
import { isoToNs } from "../time.ts";
import { scoringView, spanTreeView, traceListItemView, traceSummaryView } from "./trace.view.ts";

export function tracesRoutes(deps: { database: Database }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      "/traces",
      {
        schema: {
          summary: "List traces, newest first",
          description:
            "Each row carries the stored score's outcome, total tokens, cost and task, the distinct finding modes (code and judges) and the code attribution's rank-1 agent (null / empty until scored). Filters (all server-side, combined with AND): service, agent (any agent in the trace), from/to (ISO 8601, on the trace start), hasError, outcome, mode or category (of the findings of `source`), task, baseline, experiment or replay and their variant (repeatable), q (free text over span names and attributes: every word as a word prefix). Keyset pagination with the opaque `cursor` from the previous page.",
          tags: ["traces"],
          querystring: TraceListQuery,
          response: { 200: TraceList, 400: ErrorBody, 401: ErrorBody },
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
          outcome: q.outcome,
          mode: q.mode,
          category: q.category,
          source: q.source,
          taskId: q.task,
          isBaseline: q.baseline,
          experimentId: q.experiment,
          replayId: q.replay,
          variants: q.variant,
          text: q.q,
          cursor: q.cursor,
          limit: q.limit,
        });
        return { items: page.items.map(traceListItemView), nextCursor: page.nextCursor };
      },
    );

    r.get(
      "/traces/:traceId",
      {
        schema: {
          summary: "One trace: span tree with normalized fields and owning agents, and its stored score set (per-agent usage, totals, handoffs, attributions)",
          description:
            '`roots` nests at most 64 levels; deeper spans follow as further `roots` entries (see `childrenInRoots`). `scoring` is what the worker stored when it last scored the trace, the same rows /scores, /handoffs and /attribution serve; `{ status: "pending" }` until the first score.',
          tags: ["traces"],
          params: z.object({ traceId: TraceId }),
          response: { 200: TraceDetail, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
        // The tree is built by typed views (spanTreeView): re-parsing 10,000 nested nodes through zod
        // before stringifying held the event loop for ~400 ms, so this route stringifies what it built.
        serializerCompiler: () => (data) => JSON.stringify(data),
      },
      async (req) => {
        const [found, stored] = await Promise.all([
          getTrace(deps.database, req.projectId, req.params.traceId),
          getTraceScoring(deps.database, req.projectId, req.params.traceId),
        ]);
        if (!found) throw new ApiError("not_found", `trace ${req.params.traceId} not found`);
        // Only the tree's owning agent per span and counted tokens come from the spans (nothing stores them per span);
        // attribution reads handoff back-links from the content the normalizer derives.
        // Each step over a trace of 10,000 spans takes up to ~100 ms: a turn of the event loop
        // between them keeps other requests moving.
        const large = found.spans.length > 1_000;
        const spans = found.spans.map(addContent);
        const attribution = attributeAgents(spans);
        if (large) await nextTurn();
        const roots = spanTreeView(spans, attribution);
        if (large) await nextTurn();
        return { trace: traceSummaryView(found.trace), scoring: scoringView(stored), roots, orphanSpanIds: attribution.orphans };
      },
    );
  };
}
