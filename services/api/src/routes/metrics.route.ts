/**
 * GET /api/v1/metrics/{failure-modes,agents,cost-multiplier,success}: thin
 * handlers over the @crux/db aggregations (and, for success, core's
 * statistics over db's counts), all scoped to the caller's project and
 * filtered by service, agent and the time window on trace start.
 */
import { successMetricsOf, type ValidationBar } from "@crux/core";
import { agentMetrics, failureModeMetrics, multiplierMetrics, successInputs, type Database } from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  AgentsMetrics,
  AgentsMetricsQuery,
  CostMultiplierMetrics,
  CostMultiplierQuery,
  FailureModesMetrics,
  FailureModesQuery,
  SuccessMetrics,
  SuccessQuery,
} from "@crux/contracts";
import { ErrorBody } from "../errors.ts";
import { nsToIso } from "../time.ts";
import { bucketNs, resolveWindow } from "./metrics.schema.ts";

const errors = { 400: ErrorBody, 401: ErrorBody };

function sourceKind(source: string): "code" | "judge" | "human" {
  return source.startsWith("judge") ? "judge" : source === "human" ? "human" : "code";
}

/**
 * `source` (code | judge | all) filters the endpoints where findings or outcomes are counted:
 * failure-modes (findings) and success (outcomes graded by the outcome-rubric judge). It does not
 * apply to agents (usage and cost) nor cost-multiplier (tokens and cost): no judge produces those.
 */
export function metricsRoutes(deps: { database: Database; now: () => number; validationBar: ValidationBar }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;

    r.get(
      "/metrics/failure-modes",
      {
        schema: {
          summary: "MAST failure-mode rates with numerator and denominator; modes among failed traces; code vs judge sources",
          description:
            "rate = traces in scope with at least one finding of the mode / traces in scope; null when nothing measures the mode for this scope (measured: false, with the reason). source=all (default) counts a trace when a code finding or a judge's current finding has the mode; code or judge counts one side only. A rate counting a judge not validated for the mode against human labels has validated: false with the reason. groupBy=agent: per agent, the traces it took part in and its own findings; groupBy=agent|service lists (group, mode) pairs with at least one finding and is paginated.",
          tags: ["metrics"],
          querystring: FailureModesQuery,
          response: { 200: FailureModesMetrics, ...errors },
        },
      },
      async (req) => {
        const { filter, window } = resolveWindow(req.query, deps.now());
        const result = await failureModeMetrics(db, req.projectId, filter, {
          groupBy: req.query.groupBy,
          cursor: req.query.cursor,
          limit: req.query.limit,
          source: req.query.source,
          validationBar: deps.validationBar,
        });
        return { window, groupBy: req.query.groupBy, ...result, sources: result.sources.map((s) => ({ ...s, kind: sourceKind(s.source) })) };
      },
    );

    r.get(
      "/metrics/agents",
      {
        schema: {
          summary: "Per-agent tokens, cost, calls, errors and share of the total over the window; optional time series",
          description:
            "Agents ordered by total tokens (desc). With `bucket`, `series` holds one point per non-empty (bucket, agent) for the agents of this page.",
          tags: ["metrics"],
          querystring: AgentsMetricsQuery,
          response: { 200: AgentsMetrics, ...errors },
        },
      },
      async (req) => {
        const { filter, window } = resolveWindow(req.query, deps.now(), req.query.bucket);
        const bucket = req.query.bucket;
        const result = await agentMetrics(db, req.projectId, filter, {
          cursor: req.query.cursor,
          limit: req.query.limit,
          bucketNs: bucket === undefined ? undefined : bucketNs[bucket],
        });
        return {
          window,
          totals: result.totals,
          agents: result.agents,
          nextCursor: result.nextCursor,
          bucket: bucket ?? null,
          series:
            result.series === null
              ? bucket === undefined
                ? null
                : []
              : result.series.map(({ bucketStartNs, ...p }) => ({ ...p, bucketStart: nsToIso(bucketStartNs) })),
        };
      },
    );

    r.get(
      "/metrics/cost-multiplier",
      {
        schema: {
          summary: "Token and cost multipliers against the single-agent baseline, per task and overall",
          description:
            "Measured when read: each run's observed totals divided by its task's current baseline (the mean of the task's baseline runs, else a configured figure, else unknown), so a baseline exported after its runs counts at once. Here: the mean of the runs' multipliers, the mean observed and baseline figures, and how the baselines were found. Baseline runs are counted, not averaged. Tasks are paginated by task id; runs without a task id count in `overall` only.",
          tags: ["metrics"],
          querystring: CostMultiplierQuery,
          response: { 200: CostMultiplierMetrics, ...errors },
        },
      },
      async (req) => {
        const { filter, window } = resolveWindow(req.query, deps.now());
        return { window, ...(await multiplierMetrics(db, req.projectId, filter, { cursor: req.query.cursor, limit: req.query.limit })) };
      },
    );

    r.get(
      "/metrics/success",
      {
        schema: {
          summary: "Task success rate with a bootstrap interval over tasks, and milestone coverage",
          description:
            "The system's success rate: runs tagged crux.baseline=true (the single-agent reference) are left out (counted in `baselineRuns`). Each task weighs the same (the mean of its runs); the percentile interval resamples tasks, not runs, with a fixed seed. A run without a task id is its own task; runs without an outcome are left out. A run's outcome is the API override, else the tracer's crux.outcome.success, else the outcome-rubric judge's grade (source judge); `source` picks code (the first two), judge or all. Milestone coverage covers every scored trace in scope.",
          tags: ["metrics"],
          querystring: SuccessQuery,
          response: { 200: SuccessMetrics, ...errors },
        },
      },
      async (req) => {
        const { filter, window } = resolveWindow(req.query, deps.now());
        const inputs = await successInputs(db, req.projectId, filter, { source: req.query.source });
        return { window, source: req.query.source, outcomeSources: inputs.outcomeSources, ...successMetricsOf(inputs, { confidence: req.query.confidence }) };
      },
    );
  };
}
