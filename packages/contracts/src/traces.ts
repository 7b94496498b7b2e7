/** GET /traces and GET /traces/:traceId. */
import { z } from "zod";
import { ReportedCostUsd } from "./cost.ts";
import { spanIdField, traceIdField } from "./ids.ts";
import { IsoTime, cursorParam, limitParam, nextCursorField, text } from "./request.ts";
import { Attribution } from "./scores.ts";
import { AgentUsage, Handoff, TraceTotals } from "./usage.ts";
import { mastCategories, mastModeIds } from "@crux/core/vocabulary";

/** A run's outcome as the list shows it: the stored score's success, `unknown` when none says (or not scored yet). */
export const RunOutcome = z.enum(["success", "failed", "unknown"]);

const trueOrFalse = z
  .enum(["true", "false"])
  .transform((v) => v === "true")
  .optional();

export const TraceListQuery = z
  .strictObject({
    service: text().optional(),
    agent: text().optional(),
    from: IsoTime.optional(),
    to: IsoTime.optional(),
    hasError: trueOrFalse,
    outcome: RunOutcome.optional().describe("success / failed: the stored score's outcome; unknown: no outcome, or not scored yet"),
    mode: z.enum(mastModeIds).optional().describe("Runs with a finding of this MAST mode (e.g. FM-1.3)"),
    category: z.enum(mastCategories).optional().describe("Runs with a finding of this MAST category"),
    source: z
      .enum(["code", "judge", "all"])
      .optional()
      .describe("Which findings `mode` and `category` look at: code detectors, LLM judges, or either (default)"),
    task: text().optional().describe("Runs of this task (crux.task.id)"),
    baseline: trueOrFalse.describe("true: only runs tagged crux.baseline; false: only the others"),
    experiment: text().optional().describe("Runs of this experiment (crux.experiment.id), declared or implicit"),
    replay: text().optional().describe("Re-runs of this counterfactual replay (crux.replay.id)"),
    variant: z
      .union([text(), z.array(text()).min(1).max(100)])
      .transform((v) => (Array.isArray(v) ? v : [v]))
      .optional()
      .describe(
        "With `experiment` or `replay`: runs of this variant (repeat for several, at most 100), named as the report names it (a run without crux.variant is `baseline` when baseline-tagged, else `default`); of a replay, the correction set",
      ),
    q: text(200)
      .optional()
      .describe(
        "Free text over span names and string attribute values (inputs, outputs, tool arguments): every word must appear, each matched as a word prefix, case-insensitive",
      ),
    cursor: cursorParam.optional(),
    limit: limitParam(),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: "'from' must not be after 'to'", path: ["from"] })
  .refine((q) => q.variant === undefined || q.experiment !== undefined || q.replay !== undefined, {
    message: "'variant' needs 'experiment' or 'replay': a variant is named within one",
    path: ["variant"],
  });

export const TraceSummary = z.object({
  traceId: traceIdField(),
  serviceName: z.string().nullable(),
  rootSpanId: z.string().nullable(),
  rootName: z.string().nullable(),
  startTime: z.string(),
  endTime: z.string(),
  durationMs: z.number(),
  spanCount: z.number(),
  errorCount: z.number(),
  agents: z.array(z.string()),
  hasError: z.boolean(),
  settled: z.boolean().describe("False while spans may still arrive (the trace is dirty and not settled yet)"),
  lastReceivedAt: z.string(),
});
export type TraceSummary = z.infer<typeof TraceSummary>;

/** A row of GET /traces: the summary plus what its stored score set says (null / empty until scored). */
export const TraceListItem = TraceSummary.extend({
  scored: z.boolean().describe("The worker has stored a score set; the fields below are null or empty until then"),
  outcome: RunOutcome,
  taskId: z.string().nullable(),
  isBaseline: z.boolean().nullable(),
  totalTokens: z.number().nullable(),
  costUsd: z.number().nullable().describe("Crux's cost of the run in USD; null when not scored or no model of it is priced"),
  findingModes: z.array(z.string()).describe("Distinct MAST modes found, by code detectors or judges, sorted"),
  findingCount: z.number().describe("Code findings plus the judges' current findings"),
  attributedAgent: z.string().nullable().describe("The code attribution's rank-1 agent (a lead, not a verdict)"),
  attributedSpanId: z.string().nullable(),
});
export type TraceListItem = z.infer<typeof TraceListItem>;

export const TraceList = z.object({ items: z.array(TraceListItem), nextCursor: nextCursorField() });

const Json = z.unknown();

export const SpanNode = z.object({
  spanId: spanIdField(),
  parentSpanId: z.string().nullable(),
  name: z.string(),
  kind: z.number(),
  startTimeUnixNano: z.string(),
  endTimeUnixNano: z.string(),
  durationMs: z.number(),
  status: z.object({ code: z.number(), message: z.string() }),
  operation: z.enum(["agent", "llm", "tool", "handoff", "other"]),
  convention: z.string(),
  agent: z.string().nullable().describe("The agent this span is credited to (nearest ancestor agent span)"),
  agentPath: z.array(z.string()),
  depth: z.number(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  cachedTokens: z.number().nullable(),
  countedTokens: z
    .object({ input: z.number(), output: z.number(), cached: z.number() })
    .describe("Tokens that count toward totals (0 for nested duplicates and run totals)"),
  reportedCostUsd: ReportedCostUsd(),
  toolName: z.string().nullable(),
  toolCallId: z.string().nullable(),
  handoffSender: z.string().nullable().describe("On a handoff span: the agent handing off"),
  handoffReceiver: z.string().nullable().describe("On a handoff span: the agent receiving"),
  isError: z.boolean(),
  errorType: z.string().nullable(),
  conversationId: z.string().nullable(),
  serviceName: z.string().nullable(),
  tags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])),
  attributes: z.record(z.string(), Json),
  events: z.array(z.object({ timeUnixNano: z.string(), name: z.string(), attributes: z.record(z.string(), Json) })),
  links: z.array(z.object({ traceId: z.string(), spanId: z.string(), attributes: z.record(z.string(), Json) })),
  scope: z.object({ name: z.string(), version: z.string() }),
  limitsApplied: z.object({ truncatedKeys: z.array(z.string()), droppedAttributes: z.number() }),
  childrenInRoots: z
    .boolean()
    .describe(
      "True when this span sits at the last nesting level (64): its children are not nested under it but listed in `roots`, each with parentSpanId = this span",
    ),
  get children() {
    return z.array(SpanNode);
  },
});
export type SpanNode = z.infer<typeof SpanNode>;

/** What the worker stored for the trace, or that it has not scored it yet. */
export const TraceScoring = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("pending").describe("Not scored yet: the worker scores a trace once it has been quiet for the settle delay"),
  }),
  z.object({
    status: z.literal("scored"),
    version: z.number(),
    scoredAt: z.string(),
    totals: TraceTotals,
    agents: z.array(AgentUsage).describe("Per agent, as /traces/{traceId}/scores agents"),
    handoffs: z.array(Handoff).describe("As /traces/{traceId}/handoffs"),
    attributions: z.array(Attribution).describe("As /traces/{traceId}/attribution"),
  }),
]);
export type TraceScoring = z.infer<typeof TraceScoring>;

export const TraceDetail = z.object({
  trace: TraceSummary,
  scoring: TraceScoring.describe(
    "The stored score set (the one /scores, /handoffs and /attribution serve), never computed per request. When trace.settled is false, spans arrived after it was scored and a re-score is due.",
  ),
  roots: z
    .array(SpanNode)
    .describe(
      "Every span exactly once. Root spans (and orphans, whose parent never arrived) with their descendants nested under `children`, at most 64 levels deep; the children of a span at the 64th level (`childrenInRoots: true`) follow as further entries of `roots` (their parentSpanId says where they hang) and nest from there. `roots` holds true roots and orphans in start order, then those continuations; children are in start order.",
    ),
  orphanSpanIds: z.array(z.string()),
});
export type TraceDetail = z.infer<typeof TraceDetail>;
