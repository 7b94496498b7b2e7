/**
 * Human labels of a trace (PUT/GET /traces/:traceId/labels) and the agreement of code detectors
 * and judges with them (GET /validation; docs/metrics.md §12). Thin handlers over @crux/db and
 * core's statistics.
 */
import type { ValidationBar } from "@crux/core";
import {
  checkLabelTargets,
  getTraceLabels,
  listTraceLabelHistory,
  putTraceLabels,
  traceScoreStatus,
  validationMetrics,
  type Database,
  type StoredTraceLabels,
} from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { TraceId, TraceLabelHistoryResponse, TraceLabelsBody, TraceLabelsResponse, ValidationQuery, ValidationResponse } from "@crux/contracts";
import { ApiError, ErrorBody } from "../errors.ts";
import { isoToNs } from "../time.ts";

const params = z.object({ traceId: TraceId });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const labelProblemCode = { trace_not_found: "not_found", not_scored: "conflict", unknown_target: "invalid_request" } as const;

function labelsView(l: StoredTraceLabels) {
  return {
    modes: l.modes,
    decisive: { agent: l.decisiveAgent, spanId: l.decisiveSpanId, stepIndex: l.decisiveStepIndex },
    note: l.note,
    labeller: l.labeller,
    updatedAt: l.updatedAt.toISOString(),
  };
}

export function validationRoutes(deps: { database: Database; validationBar: ValidationBar }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;

    r.put(
      "/traces/:traceId/labels",
      {
        schema: {
          summary: "Store a person's labels of the trace (the earlier version is kept in its history): modes present or absent, decisive agent and step",
          description:
            "Only the modes given are labelled (true present, false absent); an unknown mode id is a 400. The decisive agent and step (span id and/or step index) label the decisive error: each must be in the trace (the agent acts in it, the span is one of its spans, the step index one of its steps; with both, the step is that span), else a 400 naming what is not; a step index on a trace not yet scored is a 409 (steps are numbered when it is). The labels replace the current ones, which move to GET /traces/:traceId/labels/history. GET /validation compares code detectors and judges with the current labels.",
          tags: ["validation"],
          params,
          body: TraceLabelsBody,
          response: { 200: TraceLabelsResponse, ...errors, 409: ErrorBody },
        },
      },
      async (req) => {
        const b = req.body;
        const decisive = {
          decisiveAgent: b.decisive?.agent ?? null,
          decisiveSpanId: b.decisive?.spanId ?? null,
          decisiveStepIndex: b.decisive?.stepIndex ?? null,
        };
        const check = await checkLabelTargets(db, req.projectId, req.params.traceId, decisive);
        if (!check.ok) throw new ApiError(labelProblemCode[check.problem], check.message);
        const stored = await putTraceLabels(db, req.projectId, req.params.traceId, { modes: b.modes, ...decisive, note: b.note, labeller: b.labeller });
        if (!stored) throw new ApiError("not_found", `trace ${req.params.traceId} not found`);
        return { traceId: req.params.traceId, labelled: true, labels: labelsView(stored) };
      },
    );

    r.get(
      "/traces/:traceId/labels",
      {
        schema: { summary: "The trace's labels, if a person labelled it", tags: ["validation"], params, response: { 200: TraceLabelsResponse, ...errors } },
      },
      async (req) => {
        const stored = await getTraceLabels(db, req.projectId, req.params.traceId);
        if (stored) return { traceId: req.params.traceId, labelled: true, labels: labelsView(stored) };
        const { exists } = await traceScoreStatus(db, req.projectId, req.params.traceId);
        if (!exists) throw new ApiError("not_found", `trace ${req.params.traceId} not found`);
        return { traceId: req.params.traceId, labelled: false, labels: null };
      },
    );

    r.get(
      "/traces/:traceId/labels/history",
      {
        schema: {
          summary: "Earlier versions of the trace's labels, newest first",
          tags: ["validation"],
          params,
          response: { 200: TraceLabelHistoryResponse, ...errors },
        },
      },
      async (req) => {
        const { exists } = await traceScoreStatus(db, req.projectId, req.params.traceId);
        if (!exists) throw new ApiError("not_found", `trace ${req.params.traceId} not found`);
        const items = await listTraceLabelHistory(db, req.projectId, req.params.traceId);
        return { traceId: req.params.traceId, items: items.map((l) => ({ ...labelsView(l), replacedAt: l.replacedAt.toISOString() })) };
      },
    );

    r.get(
      "/validation",
      {
        schema: {
          summary: "Agreement of code detectors and judges with human labels: per mode and source kappa, precision, recall, n; attribution accuracy per method",
          description:
            "Over every labelled trace of the project, or those whose trace start is in [from, to) and of `service`. A judge mode is validated when its kappa reaches the bar (CRUX_VALIDATION_KAPPA_BAR, default 0.6) on at least CRUX_VALIDATION_MIN_LABELS labelled traces (default 20). Per mode, the code row (any code finding of the mode counts), one `code.<detectorId>` row per code detector of the mode (a trace counts as flagged where a finding of the mode names that detector; traces scored before findings named their detector are left out of these rows until re-scored), and one row per judge. At most 14 modes × (code + its detectors + each judge) rows: not paginated.",
          tags: ["validation"],
          querystring: ValidationQuery,
          response: { 200: ValidationResponse, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (req) => {
        const { from, to, service } = req.query;
        if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to)) {
          throw new ApiError("invalid_window", `'from' (${from}) is after 'to' (${to})`);
        }
        const result = await validationMetrics(
          db,
          req.projectId,
          { fromNs: from === undefined ? undefined : isoToNs(from), toNs: to === undefined ? undefined : isoToNs(to), service },
          deps.validationBar,
        );
        return {
          window: {
            from: from === undefined ? null : new Date(Date.parse(from)).toISOString(),
            to: to === undefined ? null : new Date(Date.parse(to)).toISOString(),
          },
          ...result,
        };
      },
    );
  };
}
