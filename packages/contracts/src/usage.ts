/**
 * The per-agent usage shape, the handoff shape and a trace's totals: one shape
 * each, served by GET /traces/:traceId (under `scoring`), /traces/:traceId/scores
 * and /traces/:traceId/handoffs alike, from what the worker stored.
 */
import { z } from "zod";
import { CostUsd } from "./cost.ts";
import { spanIdField } from "./ids.ts";

/** Token counts; cachedTokens is part of inputTokens; totalTokens = input + output. */
export const TokenCounts = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedTokens: z.number().describe("Part of inputTokens served from cache"),
  totalTokens: z.number().describe("inputTokens + outputTokens"),
});

/** A token count that is null when the tracer reported none for the agent (tokensReported false): unknown, not 0. */
const ReportedTokens = (what: string) => z.number().nullable().describe(`${what}; null when tokensReported is false (unknown, not 0)`);

/**
 * What one agent used in one trace (docs/metrics.md §2), as the worker stored it. When the
 * tracer reported no token counts for the agent (AutoGen's built-in tracing records no model
 * calls), its token counts are null, never 0, and tokensNotReported says what to add.
 */
export const AgentUsage = z.object({
  inputTokens: ReportedTokens("Input tokens"),
  outputTokens: ReportedTokens("Output tokens"),
  cachedTokens: ReportedTokens("Part of inputTokens served from cache"),
  totalTokens: ReportedTokens("inputTokens + outputTokens"),
  tokensReported: z.boolean().describe("False when none of the agent's spans carries a token count: the tracer reported none"),
  tokensNotReported: z
    .string()
    .nullable()
    .describe(
      "When tokensReported is false: why, and which instrumentation makes the tracer report tokens (docs/instrumenting.md, Python frameworks); else null",
    ),
  agent: z.string().describe("Agent name"),
  agentId: z.string().nullable(),
  parentAgent: z.string().nullable().describe("The agent that invoked this one"),
  spans: z.number(),
  llmCalls: z.number(),
  toolCalls: z.number(),
  errors: z.number(),
  costUsd: CostUsd(),
  tokenShare: z.number().describe("This agent's totalTokens / the trace's (0 when the trace has no tokens or the agent's were not reported)"),
  wallMs: z.number().describe("Last end − first start over the agent's spans"),
  milestoneCredit: z.number().nullable(),
});
export type AgentUsage = z.infer<typeof AgentUsage>;

/** One handoff from a sender agent to a receiver agent, in the trace's order. */
export const Handoff = z.object({
  index: z.number().describe("Position among the trace's handoffs, from 0"),
  sender: z.string().nullable().describe("Agent handing off; null when not known"),
  receiver: z.string().nullable().describe("Agent receiving; null when not known"),
  spanId: spanIdField(),
  via: z.string().describe("How the handoff was recognized (docs/conventions.md §6.2)"),
  message: z.string().nullable(),
  time: z.string().describe("ISO 8601 start of the handoff span"),
});
export type Handoff = z.infer<typeof Handoff>;

/** A scored trace's totals (over all its counted spans, owned by an agent or not). */
export const TraceTotals = TokenCounts.extend({
  costUsd: CostUsd(),
  unpricedModels: z.array(z.string()).describe("Models whose tokens could not be priced; costUsd is null when any"),
});
export type TraceTotals = z.infer<typeof TraceTotals>;
