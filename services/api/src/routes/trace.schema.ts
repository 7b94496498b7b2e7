/** Response contracts of the trace routes; the schema filters what leaves the API. */
import { z } from "zod";

const TraceSummaryDto = z.object({
  traceId: z.string(),
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
  /** False while spans may still arrive (the trace is dirty and not settled yet). */
  settled: z.boolean(),
  lastReceivedAt: z.string(),
});

export const TraceListDto = z.object({ items: z.array(TraceSummaryDto), nextCursor: z.string().nullable() });

const Json = z.unknown();

const AgentUsageDto = z.object({
  name: z.string(),
  id: z.string().nullable(),
  parentAgent: z.string().nullable(),
  spans: z.number(),
  llmCalls: z.number(),
  toolCalls: z.number(),
  errors: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedTokens: z.number(),
  totalTokens: z.number(),
  cost: z
    .number()
    .nullable()
    .describe(
      'USD. Once the trace is scored (`costSource: "scored"`): the priced cost the worker stored, the same figure as /traces/{traceId}/scores agents[].costUsd (price table, a tracer-reported cost winning; null when a model is unpriced). Before that (`"reported"`): the sum of tracer-reported costs, null when none reported.',
    ),
});

export const SpanNodeDto = z.object({
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  name: z.string(),
  kind: z.number(),
  startTimeUnixNano: z.string(),
  endTimeUnixNano: z.string(),
  durationMs: z.number(),
  status: z.object({ code: z.number(), message: z.string() }),
  operation: z.enum(["agent", "llm", "tool", "handoff", "other"]),
  convention: z.string(),
  /** The agent this span is credited to (nearest ancestor agent span). */
  agent: z.string().nullable(),
  agentPath: z.array(z.string()),
  depth: z.number(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  cachedTokens: z.number().nullable(),
  /** Tokens that count toward totals (0 for nested duplicates and run totals). */
  countedTokens: z.object({ input: z.number(), output: z.number(), cached: z.number() }),
  cost: z.number().nullable(),
  toolName: z.string().nullable(),
  toolCallId: z.string().nullable(),
  handoffFrom: z.string().nullable(),
  handoffTo: z.string().nullable(),
  isError: z.boolean(),
  errorType: z.string().nullable(),
  conversationId: z.string().nullable(),
  serviceName: z.string().nullable(),
  tags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
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
    return z.array(SpanNodeDto);
  },
});
export type SpanNodeDto = z.infer<typeof SpanNodeDto>;

export const TraceDetailDto = z.object({
  trace: TraceSummaryDto,
  agents: z.array(AgentUsageDto),
  /** Which cost agents[].cost and totals.cost carry (see AgentUsageDto.cost). */
  costSource: z
    .enum(["scored", "reported"])
    .describe("scored: the priced cost stored by the worker (same as /scores); reported: tracer-reported costs only (the trace is not scored yet)"),
  totals: z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedTokens: z.number(), totalTokens: z.number(), cost: z.number().nullable() }),
  handoffs: z.array(z.object({ from: z.string().nullable(), to: z.string().nullable(), spanId: z.string(), via: z.string(), time: z.string() })),
  /** Root spans with their descendants nested under `children`; orphans (parent never arrived) are roots too. */
  roots: z
    .array(SpanNodeDto)
    .describe(
      "Every span exactly once. Root spans (and orphans, whose parent never arrived) with their descendants nested under `children`, at most 64 levels deep; the children of a span at the 64th level (`childrenInRoots: true`) follow as further entries of `roots` (their parentSpanId says where they hang) and nest from there. `roots` holds true roots and orphans in start order, then those continuations; children are in start order.",
    ),
  orphanSpanIds: z.array(z.string()),
});
