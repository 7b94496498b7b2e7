/**
 * Human labels (PUT/GET /traces/:traceId/labels), agreement of code detectors and judges with
 * them (GET /validation), the `source` filter of the metrics endpoints, and the judges' side of
 * the per-trace findings and attribution (docs/metrics.md §11–12).
 */
import { mastModeIds } from "@crux/core/vocabulary";
import { z } from "zod";
import { MethodAccuracy } from "./scores.ts";
import { SpanId, traceIdField } from "./ids.ts";
import { IsoTime, text } from "./request.ts";

/** The 14 MAST modes (docs/failure-modes.md §1), declared in core. */
export { mastModeIds };

/** Which findings (or outcomes) a metric counts: code detectors (and tracer outcomes) only, judges only, or both. */
export const FindingSourceFilter = z
  .enum(["code", "judge", "all"])
  .default("all")
  .describe("code: code detectors (for outcomes: the tracer's tag or the API override); judge: LLM judges only; all (default): either");

const LabelledModes = z
  .record(z.string(), z.boolean({ error: "must be true (present) or false (absent)" }))
  .superRefine((modes, ctx) => {
    for (const mode of Object.keys(modes)) {
      if (!(mastModeIds as readonly string[]).includes(mode)) {
        ctx.addIssue({ code: "custom", path: [mode], message: `unknown failure mode "${mode.slice(0, 40)}"; modes are ${mastModeIds.join(", ")}` });
      }
    }
  })
  .describe('Each mode the person labelled: true present, false absent, e.g. { "FM-2.4": true, "FM-3.3": false }; modes left out are unlabelled');

const Decisive = z.strictObject({
  agent: text(256).nullable().default(null).describe("The agent whose error made the failure inevitable"),
  spanId: SpanId.nullable().default(null).describe("The decisive step's span"),
  stepIndex: z.number().int().nonnegative().max(2_147_483_647).nullable().default(null).describe("The decisive step's index in the trace's ordered steps"),
});

export const TraceLabelsBody = z
  .strictObject({
    modes: LabelledModes.default({}),
    decisive: Decisive.nullable().default(null),
    note: text(4_000).nullable().default(null),
    labeller: text(256).describe("Who labelled the trace"),
  })
  .refine(
    (b) =>
      Object.keys(b.modes).length > 0 || (b.decisive !== null && (b.decisive.agent !== null || b.decisive.spanId !== null || b.decisive.stepIndex !== null)),
    {
      message: "label at least one mode or the decisive agent or step",
    },
  );

export const TraceLabels = z.object({
  modes: z.record(z.string(), z.boolean()),
  decisive: z.object({ agent: z.string().nullable(), spanId: z.string().nullable(), stepIndex: z.number().nullable() }),
  note: z.string().nullable(),
  labeller: z.string(),
  updatedAt: z.string(),
});

export const TraceLabelsResponse = z.object({ traceId: traceIdField(), labelled: z.boolean(), labels: TraceLabels.nullable() });

export const TraceLabelHistoryResponse = z.object({
  traceId: traceIdField(),
  items: z
    .array(TraceLabels.extend({ replacedAt: z.string().describe("When a later PUT replaced this version") }))
    .describe("Every earlier version of the trace's labels, newest first (the current one is GET /traces/:traceId/labels)"),
});

/** No window: every label of the project. */
export const ValidationQuery = z.strictObject({
  service: text().optional().describe("Only labelled traces of this service"),
  from: IsoTime.optional().describe("Inclusive start of a window on the trace start; default: no lower bound"),
  to: IsoTime.optional().describe("Exclusive end of the window; default: no upper bound"),
});

const Agreement = z.object({
  mode: z.string(),
  source: z
    .string()
    .describe(
      '"code" (every code detector of the mode: any code finding of it counts), `code.<detectorId>` (that detector alone, e.g. `code.error-propagation`) or a judge id (`judge.<kind>`)',
    ),
  kind: z.enum(["code", "judge"]),
  detectors: z
    .array(z.string())
    .describe('For code: the detector ids the row measures: every one that reports the mode ("code"), or the one (`code.<detectorId>`)'),
  n: z
    .number()
    .describe(
      "Labelled traces (with this mode labelled) that the source has seen: scored, or judged by this judge. A detector's row leaves out traces whose stored findings of the mode do not name their detector (scored before findings did; re-scoring fixes it)",
    ),
  truePositives: z.number(),
  falsePositives: z.number(),
  falseNegatives: z.number(),
  trueNegatives: z.number(),
  observedAgreement: z.number().nullable(),
  kappa: z.number().nullable().describe("Cohen's kappa; null when n is 0 or every label and prediction says the same (kappaReason says which)"),
  kappaReason: z.string().nullable(),
  precision: z.number().nullable().describe("null when the source said present nowhere"),
  recall: z.number().nullable().describe("null when no label says present"),
  validated: z.boolean().describe("kappa at or above the bar on at least the minimum number of labels"),
  reason: z.string().nullable(),
});

export const ValidationResponse = z.object({
  window: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
  bar: z.object({ kappaBar: z.number(), minLabels: z.number() }),
  labelledTraces: z.number(),
  modes: z.array(Agreement),
  attribution: z.array(MethodAccuracy),
});
