/**
 * GET /metrics/{agents,cost-multiplier,success}: queries and responses
 * (GET /metrics/failure-modes: failure-modes.ts).
 */
import { z } from "zod";
import { IsoTime, PageQuery, nextCursorField, text } from "./request.ts";
import { FindingSourceFilter } from "./validation.ts";

/** The filter every metrics endpoint takes. Strict: an unknown parameter (a typo like `servce`) is a 400. */
export const WindowQuery = z.strictObject({
  service: text().optional().describe("Only traces of this service"),
  agent: text().optional().describe("Only traces this agent took part in (and, per endpoint, this agent's rows)"),
  from: IsoTime.optional().describe("Inclusive start of the window on the trace start (ISO 8601); default: `to` minus 24 hours"),
  to: IsoTime.optional().describe("Exclusive end of the window (ISO 8601); default: now"),
});

export const BucketParam = z.enum(["1m", "5m", "1h", "1d"]);
export type Bucket = z.infer<typeof BucketParam>;

/** The window a metrics answer covers, as resolved (ISO 8601). */
export const Window = z.object({ from: z.string(), to: z.string() });

export const AgentsMetricsQuery = WindowQuery.extend(PageQuery.shape).extend({ bucket: BucketParam.optional() });

/** A window sum of token counts: null when no per-trace row reported tokens (unknown, not 0). */
const SummedTokens = (what: string) =>
  z.number().nullable().describe(`${what}, summed over the per-trace rows that reported tokens; null when none did (tokensReported false)`);

/** Sums over an agent's (or all agents') per-trace usage in the window. */
const AgentUsageTotals = z.object({
  inputTokens: SummedTokens("Input tokens"),
  outputTokens: SummedTokens("Output tokens"),
  cachedTokens: SummedTokens("Part of inputTokens served from cache"),
  totalTokens: SummedTokens("inputTokens + outputTokens"),
  tokensReported: z.boolean().describe("False when no per-trace row reported token counts (as AgentUsage.tokensReported): tokens and costUsd are then null"),
  tokensNotReportedRows: z
    .number()
    .describe(
      "Per-trace agent rows whose tracer reported no token counts, left out of the token sums and costUsd (some rows unreported: the sums are partial)",
    ),
  costUsd: z
    .number()
    .nullable()
    .describe("Sum of the known costUsd of the per-trace rows (see unpricedRows for those left out); null when no row reported tokens"),
  unpricedRows: z.number().describe("Per-trace agent rows whose costUsd is null (some tokens unpriced), left out of costUsd"),
  llmCalls: z.number(),
  toolCalls: z.number(),
  spans: z.number(),
  errors: z.number(),
  traces: z.number(),
});

export const AgentsMetrics = z.object({
  window: Window,
  totals: AgentUsageTotals.extend({ agents: z.number() }),
  agents: z.array(AgentUsageTotals.extend({ agent: z.string(), tokenShare: z.number().nullable(), costShare: z.number().nullable() })),
  nextCursor: nextCursorField(),
  bucket: BucketParam.nullable(),
  series: z.array(AgentUsageTotals.extend({ agent: z.string(), bucketStart: z.string() })).nullable(),
});

export const CostMultiplierQuery = WindowQuery.extend(PageQuery.shape);

const MultiplierSources = z.object({ baseline_run: z.number(), configured: z.number(), unknown: z.number() });
const MultiplierSummary = z.object({
  value: z.number().nullable(),
  observed: z.number().nullable(),
  baseline: z.number().nullable(),
  runsWithBaseline: z.number(),
  source: z.enum(["baseline_run", "configured", "unknown", "mixed"]),
  sources: MultiplierSources,
});

export const CostMultiplierMetrics = z.object({
  window: Window,
  overall: z.object({
    runs: z.number(),
    baselineRuns: z.number(),
    tasks: z.number(),
    tokens: MultiplierSummary.extend({ ratioOfTotals: z.number().nullable() }),
    cost: MultiplierSummary.extend({ ratioOfTotals: z.number().nullable() }),
  }),
  tasks: z.array(z.object({ taskId: z.string(), runs: z.number(), baselineRuns: z.number(), tokens: MultiplierSummary, cost: MultiplierSummary })),
  nextCursor: nextCursorField(),
});

export const SuccessQuery = WindowQuery.extend({ confidence: z.coerce.number().gt(0).lt(1).default(0.95), source: FindingSourceFilter });

export const SuccessMetrics = z.object({
  window: Window,
  source: z.enum(["code", "judge", "all"]),
  outcomeSources: z
    .object({ tracer: z.number(), judge: z.number() })
    .describe("Runs counted with an outcome from the tracer tag or the API override, and runs without one graded by the outcome-rubric judge"),
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
      method: z
        .enum(["bootstrap", "wilson"])
        .describe(
          "How the interval was made: a bootstrap over tasks (`iterations` resamples), or, with fewer than 10 tasks, Wilson's score interval over the tasks (`iterations` 0), which stays wide with few tasks instead of looking certain",
        ),
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
