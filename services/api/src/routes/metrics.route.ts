/**
 * GET /api/v1/metrics/{failure-modes,agents,cost-multiplier,success}: thin
 * handlers over the @crux/db aggregations, all scoped to the caller's project
 * and filtered by service, agent and the time window on trace start.
 */
import { agentMetrics, failureModeMetrics, multiplierMetrics, successMetrics, type Database } from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ErrorBody } from "../errors.ts";
import { nsToIso } from "../time.ts";
import { BucketParam, MeasurementDto, PageQuery, WindowDto, WindowQuery, bucketNs, resolveWindow } from "./metrics.schema.ts";

const errors = { 400: ErrorBody, 401: ErrorBody };

const RateDto = MeasurementDto.extend({
  group: z.string().nullable(),
  mode: z.string(),
  numerator: z.number(),
  denominator: z.number(),
  rate: z.number().nullable(),
});
const FailureModesDto = z.object({
  window: WindowDto,
  groupBy: z.enum(["mode", "category", "agent", "service"]),
  scopeTraces: z.number().describe("Scored traces in scope (the denominator when not grouped by agent or service)"),
  coverage: z
    .array(MeasurementDto.extend({ mode: z.string() }))
    .describe("Every mode of the taxonomy, whatever the grouping: measured or not, by which detectors"),
  rates: z.array(RateDto),
  nextCursor: z.string().nullable(),
  failed: z.object({
    traces: z.number().describe("Traces in scope whose outcome is a failure"),
    modes: z.array(z.object({ mode: z.string(), traces: z.number(), share: z.number().nullable() })),
  }),
  sources: z.array(z.object({ mode: z.string(), source: z.string(), kind: z.enum(["code", "judge", "human"]), findings: z.number(), traces: z.number() })),
});

const UsageDto = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedTokens: z.number(),
  totalTokens: z.number(),
  costUsd: z.number(),
  unpricedRows: z.number(),
  llmCalls: z.number(),
  toolCalls: z.number(),
  spans: z.number(),
  errors: z.number(),
  traces: z.number(),
});
const AgentsDto = z.object({
  window: WindowDto,
  totals: UsageDto.extend({ agents: z.number() }),
  agents: z.array(UsageDto.extend({ agent: z.string(), tokenShare: z.number().nullable(), costShare: z.number().nullable() })),
  nextCursor: z.string().nullable(),
  bucket: BucketParam.nullable(),
  series: z.array(UsageDto.extend({ agent: z.string(), bucketStart: z.string() })).nullable(),
});

const SourcesDto = z.object({ baseline_run: z.number(), configured: z.number(), unknown: z.number() });
const MultiplierDto = z.object({
  value: z.number().nullable(),
  observed: z.number().nullable(),
  baseline: z.number().nullable(),
  runsWithBaseline: z.number(),
  source: z.enum(["baseline_run", "configured", "unknown", "mixed"]),
  sources: SourcesDto,
});
const CostMultiplierDto = z.object({
  window: WindowDto,
  overall: z.object({
    runs: z.number(),
    baselineRuns: z.number(),
    tasks: z.number(),
    tokens: MultiplierDto.extend({ ratioOfTotals: z.number().nullable() }),
    cost: MultiplierDto.extend({ ratioOfTotals: z.number().nullable() }),
  }),
  tasks: z.array(z.object({ taskId: z.string(), runs: z.number(), baselineRuns: z.number(), tokens: MultiplierDto, cost: MultiplierDto })),
  nextCursor: z.string().nullable(),
});

const SuccessDto = z.object({
  window: WindowDto,
  successRate: z
    .object({
      estimate: z.number(),
      lower: z.number(),
      upper: z.number(),
      confidence: z.number(),
      iterations: z.number(),
      tasks: z.number(),
      runs: z.number(),
      seed: z.number(),
    })
    .nullable(),
  runs: z.number(),
  successfulRuns: z.number(),
  runsWithoutOutcome: z.number(),
  baselineRuns: z.number().describe("Runs tagged crux.baseline=true in scope: the single-agent reference, left out of the success rate and the run counts"),
  milestones: z.object({
    traces: z.number(),
    meanPartialCredit: z.number().nullable(),
    fullSuccessRate: z.number().nullable(),
    meanFurthestIndex: z.number().nullable(),
    perMilestone: z.array(z.object({ id: z.string(), traces: z.number(), passed: z.number(), passRate: z.number() })),
  }),
});

function sourceKind(source: string): "code" | "judge" | "human" {
  return source === "judge" ? "judge" : source === "human" ? "human" : "code";
}

export function metricsRoutes(deps: { database: Database; now: () => number }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;

    r.get(
      "/metrics/failure-modes",
      {
        schema: {
          summary: "MAST failure-mode rates with numerator and denominator; modes among failed traces; code vs judge sources",
          description:
            "rate = traces in scope with at least one finding of the mode / traces in scope; null when nothing measures the mode for this scope (measured: false, with the reason). groupBy=agent: per agent, the traces it took part in and its own findings; groupBy=agent|service lists (group, mode) pairs with at least one finding and is paginated.",
          tags: ["metrics"],
          querystring: WindowQuery.extend(PageQuery.shape).extend({ groupBy: z.enum(["mode", "category", "agent", "service"]).default("mode") }),
          response: { 200: FailureModesDto, ...errors },
        },
      },
      async (req) => {
        const { filter, window } = resolveWindow(req.query, deps.now());
        const result = await failureModeMetrics(db, req.projectId, filter, { groupBy: req.query.groupBy, cursor: req.query.cursor, limit: req.query.limit });
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
          querystring: WindowQuery.extend(PageQuery.shape).extend({ bucket: BucketParam.optional() }),
          response: { 200: AgentsDto, ...errors },
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
          querystring: WindowQuery.extend(PageQuery.shape),
          response: { 200: CostMultiplierDto, ...errors },
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
            "The system's success rate: runs tagged crux.baseline=true (the single-agent reference) are left out (counted in `baselineRuns`). Each task weighs the same (the mean of its runs); the percentile interval resamples tasks, not runs, with a fixed seed. A run without a task id is its own task; runs without an outcome are left out. Milestone coverage covers every scored trace in scope.",
          tags: ["metrics"],
          querystring: WindowQuery.extend({ confidence: z.coerce.number().gt(0).lt(1).default(0.95) }),
          response: { 200: SuccessDto, ...errors },
        },
      },
      async (req) => {
        const { filter, window } = resolveWindow(req.query, deps.now());
        return { window, ...(await successMetrics(db, req.projectId, filter, { confidence: req.query.confidence })) };
      },
    );
  };
}
