/**
 * Per-trace score reads (/traces/:traceId/{scores,findings,attribution,handoffs,trajectories})
 * and POST /traces/:traceId/outcome.
 */
import { z } from "zod";
import { nextCursorField, text } from "./request.ts";
import { spanIdField, traceIdField } from "./ids.ts";
import { AgentUsage, Handoff, TraceTotals } from "./usage.ts";

/** A MAST finding (docs/failure-modes.md). */
export const Finding = z.object({
  mode: z.string(),
  category: z.string(),
  agent: z.string().nullable(),
  spanId: spanIdField(),
  stepIndex: z.number().nullable(),
  source: z.string(),
  confidence: z.number(),
  evidence: z.string(),
});

/** A decisive-error attribution: a lead, not a verdict. */
export const Attribution = z.object({
  method: z.string(),
  rank: z.number(),
  agent: z.string().nullable(),
  stepIndex: z.number().nullable().describe("Index in the trace's ordered steps"),
  spanId: z.string().nullable().describe("Span id: 16 lowercase hex characters"),
  reason: z.string(),
  confidence: z.number(),
});
export type Attribution = z.infer<typeof Attribution>;

export const Step = z.object({
  index: z.number(),
  spanId: spanIdField(),
  kind: z.string(),
  toolName: z.string().nullable(),
  isError: z.boolean(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  time: z.string(),
  spanName: z.string().nullable().describe("The step span's name; null when the span is no longer stored"),
  text: z
    .object({
      input: z.string().nullable().describe("What the step was given: the model input, or the agent's turn input"),
      args: z.string().nullable().describe("Tool arguments as canonical JSON, or the raw string"),
      output: z.string().nullable().describe("The model output or tool result"),
      error: z.string().nullable().describe("The exception message (exception event, else the status message) of a failed step"),
    })
    .describe("The step's content as the tracer sent it (untrusted text: render it as text, never as markup); null fields were not captured"),
});

const Multiplier = z.object({
  value: z.number().nullable(),
  observed: z.number().nullable(),
  baseline: z.number().nullable(),
  source: z.string(),
});

const MilestoneDetail = z.object({
  id: z.string(),
  passed: z.boolean(),
  spanId: z.string().nullable(),
  agent: z.string().nullable(),
  evaluated: z.boolean().optional().describe("false when a budget cut the check: neither passed nor failed"),
  notEvaluatedReason: z.string().nullable().optional().describe("trace_budget or project_budget"),
});

const ErrorPath = z.object({
  spanId: spanIdField(),
  stepIndex: z.number().nullable(),
  agent: z.string().nullable(),
  depth: z.number(),
  path: z.string(),
  errorType: z.string().nullable(),
});
export type ErrorPath = z.infer<typeof ErrorPath>;

export const Scores = z.object({
  version: z.number(),
  serviceName: z.string().nullable(),
  startTime: z.string(),
  durationMs: z.number(),
  scoredAt: z.string(),
  run: z.object({
    success: z.boolean().nullable(),
    score: z.number().nullable(),
    taskId: z.string().nullable(),
    variant: z.string().nullable(),
    isBaseline: z.boolean(),
    experimentId: z.string().nullable(),
    seed: z.string().nullable(),
  }),
  totals: TraceTotals,
  multiplier: z.object({ tokens: Multiplier, cost: Multiplier }),
  coordination: z.object({
    redundancy: z.number().nullable(),
    ignoredHandoffs: z.number().nullable(),
    roleViolations: z.number().nullable(),
    score: z.number().nullable(),
  }),
  communicationEfficiency: z.number().nullable(),
  goalDrift: z.number().nullable(),
  milestones: z
    .object({
      setId: z.string(),
      partialCredit: z.number().nullable(),
      fullSuccess: z.boolean().nullable(),
      furthestIndex: z.number().nullable(),
      detail: z.array(MilestoneDetail),
    })
    .nullable(),
  findingCount: z.number(),
  signals: z.array(z.record(z.string(), z.unknown())),
  errorPaths: z.array(ErrorPath).describe('Spans in error with the agents above them, e.g. "lead > search_1"'),
  flags: z.object({ orphans: z.number(), multipleRoots: z.boolean(), clockSkew: z.number() }),
  agents: z.array(AgentUsage),
});
export type Scores = z.infer<typeof Scores>;
export type MilestoneDetail = z.infer<typeof MilestoneDetail>;

const scoredField = () => z.boolean().describe("False until the worker has scored the trace (lists are empty then)");

export const TraceScoresResponse = z.object({ traceId: traceIdField(), scored: scoredField(), scores: Scores.nullable() });
/** A finding of either source (GET /traces/:traceId/findings): code findings first, then each judge's. */
export const TraceFinding = Finding.extend({
  source: z.string().describe("heuristic or contract (code detectors), or judge"),
  detector: z
    .string()
    .nullable()
    .describe(
      "The code detector that produced a code finding (an id of the detector list, e.g. repetition); null for a judge finding, and for a code finding stored before findings named their detector, of a mode several detectors report (until the trace is re-scored)",
    ),
  judge: z.string().nullable().describe("The judge id (`judge.<kind>`) of a judge finding; null for code"),
  explanation: z.string().nullable().describe("The judge's explanation; null for code"),
});

export const TraceFindingsResponse = z.object({ traceId: traceIdField(), scored: scoredField(), items: z.array(TraceFinding), nextCursor: nextCursorField() });

const PickAccuracy = z.object({ n: z.number(), correct: z.number(), accuracy: z.number().nullable() });

/** How often an attribution method names the labelled decisive agent and step (GET /validation). */
export const MethodAccuracy = z.object({
  method: z.string().describe('"code" (rank 1 of the stored attribution), "replay" (the trace\'s counterfactual replay), "all-at-once" or "step-by-step"'),
  source: z.string().describe('"code", "replay" or the judge id'),
  agent: PickAccuracy.describe("Labelled decisive agent vs the method's agent"),
  step: PickAccuracy.describe("Labelled decisive step (index, else span) vs the method's step"),
  unanswered: z.number().describe("Labelled traces the method saw but named nothing on"),
});

const RankedMethod = MethodAccuracy.extend({
  rank: z
    .number()
    .describe(
      "1 = the trace's replay when it names a culprit, else the most accurate on labelled traces; methods with no labelled trace rank after the measured ones",
    ),
  measured: z.boolean().describe("Some labelled trace measures its step or agent accuracy"),
  pick: z
    .object({ agent: z.string().nullable(), spanId: spanIdField().nullable(), stepIndex: z.number().nullable(), explanation: z.string() })
    .nullable()
    .describe("What this method names on this trace; null when it named nothing"),
});

export const TraceAttributionResponse = z.object({
  traceId: traceIdField(),
  scored: scoredField(),
  items: z.array(Attribution).describe("The code attribution rows (ranked rules or suspects)"),
  methods: z
    .array(RankedMethod)
    .describe(
      "The trace's replay first when it names a culprit; then code rank 1 and each judge's pick, ranked by step accuracy on labelled traces, then agent accuracy; unmeasured methods last",
    ),
});
export const TraceHandoffsResponse = z.object({ traceId: traceIdField(), scored: scoredField(), items: z.array(Handoff) });
export const TraceTrajectoriesResponse = z.object({
  traceId: traceIdField(),
  scored: scoredField(),
  items: z.array(z.object({ agent: z.string(), steps: z.array(Step) })),
});

/** POST /traces/:traceId/outcome: run tags that win over span tags. */
export const OutcomeBody = z
  .object({
    success: z.boolean().nullable().optional().describe("crux.outcome.success"),
    score: z.number().min(0).max(1).nullable().optional().describe("crux.outcome.score: graded outcome in 0..1"),
    taskId: text().nullable().optional().describe("crux.task.id"),
    variant: text().nullable().optional().describe("crux.variant"),
    isBaseline: z.boolean().nullable().optional().describe("crux.baseline"),
    experimentId: text().nullable().optional().describe("crux.experiment.id"),
    seed: text().nullable().optional().describe("crux.seed"),
  })
  .strict()
  .refine((o) => Object.keys(o).length > 0, { message: "set at least one field" });
export type OutcomeBody = z.infer<typeof OutcomeBody>;

export const OutcomeResponse = z.object({
  traceId: traceIdField(),
  override: z.record(z.string(), z.unknown()),
  rescore: z.literal("pending"),
  queued: z.boolean().describe("The re-score job was enqueued now; false = left to the sweeper"),
});
