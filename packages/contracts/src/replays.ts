/**
 * Counterfactual replay wire shapes (docs/experiments.md §9): POST /traces/:traceId/replay,
 * GET /replays/:id, GET /traces/:traceId/replays, and the signed request a runner receives per re-run.
 */
import { z } from "zod";
import { SpanId, spanIdField, traceIdField } from "./ids.ts";
import { JsonValue, text } from "./request.ts";

export const maxReplayCorrections = 8;
export const maxReplayTrials = 20;
export const defaultReplayTrials = 5;

export const ReplayCorrectionBody = z
  .strictObject({
    agent: text(200).optional().describe("The agent whose output is replaced (every output it gives in the re-run)"),
    spanId: SpanId.optional().describe("The step (span) of the trace whose output is replaced"),
    // Optional here only so that a missing output is named by the check below rather than as "nonoptional".
    output: JsonValue.optional().describe("The corrected output (any JSON); required"),
  })
  .superRefine((c, ctx) => {
    if ((c.agent === undefined) === (c.spanId === undefined)) ctx.addIssue({ code: "custom", message: "give exactly one of agent or spanId" });
    if (c.output === undefined) ctx.addIssue({ code: "custom", path: ["output"], message: "required: the corrected output" });
  });

export const ReplayBody = z.strictObject({
  corrections: z
    .array(ReplayCorrectionBody)
    .min(1, "give at least one correction")
    .max(maxReplayCorrections, `at most ${maxReplayCorrections} corrections`)
    .superRefine((cs, ctx) => {
      const seen = new Set<string>();
      cs.forEach((c, i) => {
        const key = c.spanId !== undefined ? `span:${c.spanId}` : `agent:${c.agent}`;
        if (seen.has(key)) ctx.addIssue({ code: "custom", path: [i], message: `duplicate correction of ${key}` });
        seen.add(key);
      });
    }),
  trials: z
    .number()
    .int()
    .min(1)
    .max(maxReplayTrials)
    .default(defaultReplayTrials)
    .describe("Re-runs per correction set (each correction alone, and all together)"),
  runnerId: z.uuid().optional().describe("Default: the project's runner, when it has exactly one"),
  runTimeoutMs: z
    .number()
    .int()
    .min(10_000)
    .max(86_400_000)
    .optional()
    .describe("How long a sent re-run may take to arrive scored before it is timed out (10 s to 24 h). Default: the project's setting (30 minutes)"),
});
export type ReplayBody = z.infer<typeof ReplayBody>;

const ReplaySetShape = z.object({
  id: z.string().describe('"agent:<name>", "span:<spanId>" or "all"; the crux.variant its re-runs carry'),
  kind: z.enum(["single", "combined"]),
  agents: z.array(z.string()),
  spanIds: z.array(spanIdField()),
});

const Blame = z.object({ set: z.string(), agents: z.array(z.string()), spanIds: z.array(z.string()), succeeded: z.number(), trials: z.number() });

export const ReplayReport = z.object({
  complete: z.boolean().describe("Every re-run scored or lost (undeliverable, timed out, stopped)"),
  verdict: z.enum(["decisive", "shared", "none", "open"]).describe("open: a majority that decides it is still reachable"),
  originalSuccess: z.boolean().nullable(),
  flipRate: z.number().nullable().describe("Share of the scored re-run outcomes (all sets) that differ from the original's"),
  decisive: z.array(Blame).describe("Corrections a majority of whose trials succeed alone, the most successful first"),
  sharedBlame: Blame.nullable().describe("Only the combination fixes it: no correction alone has a majority, all together has"),
  sets: z.array(
    ReplaySetShape.extend({
      trials: z.number(),
      succeeded: z.number(),
      failed: z.number(),
      unknown: z.number().describe("Scored without an outcome"),
      lost: z.number().describe("Undeliverable, timed out or stopped"),
      waiting: z.number().describe("Not sent, or sent and within their timeout"),
      successRate: z.number().nullable(),
      flipRate: z.number().nullable(),
      majority: z.boolean().nullable().describe("More than half the trials succeeded (true), can no longer (false), still open (null)"),
    }),
  ),
});

const Correction = z.object({ agent: z.string().nullable(), spanId: spanIdField().nullable(), output: z.unknown() });
const Task = z.object({
  source: z.enum(["dataset", "root_span"]),
  taskId: z.string().nullable(),
  input: z.unknown(),
  expected: z.unknown(),
});

export const Replay = z.object({
  id: z.string(),
  traceId: traceIdField(),
  runnerId: z.string(),
  trials: z.number(),
  runTimeoutMs: z.number().describe("A sent re-run not scored within this is timed out"),
  corrections: z.array(Correction),
  task: Task,
  createdAt: z.string(),
  progress: z.object({
    expected: z.number(),
    pending: z.number(),
    running: z.number(),
    scored: z.number(),
    failed: z.number(),
    timedOut: z.number(),
    stopped: z.number(),
  }),
  report: ReplayReport,
  attribution: z
    .object({ agent: z.string().nullable(), spanId: z.string().nullable(), explanation: z.string() })
    .nullable()
    .describe("What the replay records as attribution method `replay` on the trace; null while it names nothing"),
});

export const ReplayList = z.object({ items: z.array(Replay) });

/** What a runner receives, one signed POST per re-run. */
export const ReplayRunRequest = z.object({
  type: z.literal("replay.run"),
  replayId: z.string(),
  traceId: z.string().describe("The original trace"),
  set: ReplaySetShape,
  corrections: z.array(Correction).describe("The overrides of this re-run: replace these agents' or steps' outputs"),
  task: z.object({ taskId: z.string().nullable(), input: z.unknown(), expected: z.unknown() }),
  trial: z.number(),
  tags: z.record(z.string(), z.union([z.string(), z.number()])).describe("Set these on the re-run's root span or resource"),
});
