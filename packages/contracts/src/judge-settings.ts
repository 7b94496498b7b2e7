/**
 * The judge endpoints: a project's judge settings (GET/PUT /judge-settings, the
 * provider key write-only), the call records (GET /judge-calls), one trace's
 * verdicts (GET /traces/:id/verdicts) and judging one trace now
 * (POST /traces/:id/judge).
 */
import { z } from "zod";
import { TraceId, traceIdField } from "./ids.ts";
import { IsoTime, cursorParam, limitParam, nextCursorField, outboundUrl, text } from "./request.ts";
import { JudgeCallRecord, JudgeKind, JudgeProvider } from "./judges.ts";

const share = z.number().min(0).max(1);
const dollars = z.number().min(0).max(1_000_000);

/** PUT /judge-settings: replaces the project's settings; a null field falls back to the service default. */
export const JudgeSettingsBody = z
  .strictObject({
    enabled: z.boolean().default(true).describe("false switches the project's judges off whatever else is set"),
    provider: JudgeProvider.nullable().default(null).describe("null: the service default's provider, model, base URL and key"),
    model: text(200).nullable().default(null).describe("Required with provider"),
    baseUrl: outboundUrl(2_000)
      .nullable()
      .default(null)
      .describe("An OpenAI-compatible or Anthropic endpoint (a local Ollama or vLLM); null: the provider's public API"),
    apiKey: text(1_000)
      .nullable()
      .optional()
      .describe("Write-only: stored encrypted, never returned. Omitted: the stored key is kept; null: removed. A public endpoint needs one"),
    samplingShare: share
      .nullable()
      .default(null)
      .describe("Share of the traces that did not fail which the judges read (0..1); failed traces are always judged. null: the service default"),
    dailyBudgetUsd: dollars.nullable().default(null).describe("Dollars per UTC day; once spent, judge jobs wait for the next day. null: the service default"),
    rubric: text(20_000).nullable().default(null).describe("Outcome rubric the outcome judge grades the end state against"),
    kinds: z
      .array(JudgeKind)
      .max(JudgeKind.options.length)
      .refine((k) => new Set(k).size === k.length, { message: "must not repeat a kind" })
      .nullable()
      .default(null)
      .describe("Judges to run; null: every judge"),
  })
  .superRefine((b, ctx) => {
    if (b.provider !== null && b.model === null) ctx.addIssue({ code: "custom", path: ["model"], message: "is required when provider is set" });
    if (b.provider === null) {
      for (const field of ["model", "baseUrl", "apiKey"] as const) {
        if (b[field] !== null && b[field] !== undefined)
          ctx.addIssue({ code: "custom", path: [field], message: "needs provider (without one the service default's model is used)" });
      }
    }
  });
export type JudgeSettingsBody = z.infer<typeof JudgeSettingsBody>;

const Source = z.enum(["project", "service", "none"]);

export const JudgeSettingsResponse = z.object({
  /** What the project stored (the key only as set / last 4). */
  stored: z.object({
    enabled: z.boolean(),
    provider: JudgeProvider.nullable(),
    model: z.string().nullable(),
    baseUrl: z.string().nullable(),
    apiKeySet: z.boolean(),
    apiKeyLast4: z.string().nullable(),
    samplingShare: share.nullable(),
    dailyBudgetUsd: z.number().nullable(),
    rubric: z.string().nullable(),
    kinds: z.array(JudgeKind).nullable(),
    updatedAt: z.string().nullable(),
  }),
  /** What the judges use: the project's values, else the service defaults. */
  effective: z.object({
    enabled: z.boolean(),
    reason: z.string().nullable().describe("Why judges are off; null when on"),
    source: Source.describe("Where the model comes from: the project's settings, the service default, or none"),
    provider: JudgeProvider.nullable(),
    model: z.string().nullable(),
    baseUrl: z.string().nullable(),
    samplingShare: share,
    dailyBudgetUsd: z.number(),
    kinds: z.array(JudgeKind).nullable(),
  }),
  budget: z.object({
    day: z.string().describe("The UTC day spend is counted for (YYYY-MM-DD)"),
    spentUsd: z.number(),
    dailyBudgetUsd: z.number(),
    pausedUntil: z.string().nullable().describe("Set while today's spend has reached the budget: judge jobs wait until then"),
  }),
  selfPreferenceWarning: z.string().nullable().describe("Set when the judge's model family is one the project's agents use (their recent spans)"),
  canStoreApiKey: z.boolean().describe("false when the service has no CRUX_SECRET_KEY to encrypt a key with"),
});
export type JudgeSettingsResponse = z.infer<typeof JudgeSettingsResponse>;

export const JudgeCallsQuery = z.strictObject({
  traceId: TraceId.optional(),
  kind: JudgeKind.optional(),
  outcome: JudgeCallRecord.shape.outcome.optional(),
  since: IsoTime.optional().describe("Calls at or after this time"),
  cursor: cursorParam.optional().describe("Opaque nextCursor of the previous page"),
  limit: limitParam(),
});

export const JudgeCallItem = JudgeCallRecord.extend({ id: z.string(), traceId: traceIdField(), createdAt: z.string() });

export const JudgeCallList = z.object({ items: z.array(JudgeCallItem).describe("Newest first"), nextCursor: nextCursorField() });

export const TraceVerdict = z.object({
  producerId: z.string(),
  producerVersion: z.number().int(),
  model: z.string(),
  inputHash: z.string(),
  status: z.enum(["succeeded", "failed"]),
  result: z.unknown().describe("The judge's verdict (JudgeVerdictResult) or { error }"),
  selfPreferenceWarning: z.string().nullable().describe("Set when the judge's model family is one the trace's agents use"),
  createdAt: z.string(),
});

export const TraceVerdictsResponse = z.object({
  traceId: traceIdField(),
  items: z.array(TraceVerdict).describe("Oldest first"),
  nextCursor: nextCursorField(),
});

export const JudgeRequestResponse = z.object({
  traceId: traceIdField(),
  enqueued: z
    .boolean()
    .describe(
      "true: the judge job is queued; false: the queue is unreachable (or this API has none), and the recorded request is started by a worker's sweeper",
    ),
  judges: z
    .array(
      z.object({
        judge: z.string().describe("The judge's producer id (`judge.<kind>`)"),
        model: z.string(),
        action: z
          .enum(["run", "retry", "cached"])
          .describe(
            "run: no verdict of this judge, prompt version and model yet; retry: its earlier verdict failed and is run again now; cached: its verdict is kept and not paid for again (unless the trace's spans, outcome or rubric changed since, which judges it again)",
          ),
      }),
    )
    .describe("What the job will do, per judge of the project's settings"),
});
