/** GET /metrics/failure-modes: query and response. An unmeasured mode's rate is null, never 0 (docs/metrics.md §11). */
import { z } from "zod";
import { Window, WindowQuery } from "./metrics.ts";
import { PageQuery, nextCursorField } from "./request.ts";
import { FindingSourceFilter } from "./validation.ts";

export const FailureModesGroupBy = z.enum(["mode", "category", "agent", "service"]);

export const FailureModesQuery = WindowQuery.extend(PageQuery.shape).extend({ groupBy: FailureModesGroupBy.default("mode"), source: FindingSourceFilter });

/** Whether the judges a rate counts agree with human labels on the mode (GET /validation). */
const RateValidation = {
  validated: z
    .boolean()
    .describe("False when a judge whose findings count in this rate is not validated for the mode (kappa under the bar, or too few labels)"),
  validationReason: z.string().nullable().describe("Which judge is not validated and why; null when validated"),
};

/** Whether anything measures a failure mode (or category) in scope. */
export const Measurement = z.object({
  measured: z
    .boolean()
    .describe("False when nothing measures the mode for this scope (no detector, or the configuration it needs is not set): its rate is null"),
  detectors: z.array(z.string()).describe("Detectors that measure it (packages/core/src/mast/registry.ts ids)"),
  reason: z
    .string()
    .nullable()
    .describe(
      'What is not measured and why ("no detector", "needs an agent contract with allowedTools or forbiddenTools; none configured for this project"); null when fully measured',
    ),
});

export const FindingSourceKind = z.enum(["code", "judge", "human"]);

export const FailureModeRate = Measurement.extend({
  ...RateValidation,
  group: z.string().nullable(),
  mode: z.string().describe("The failure mode; with groupBy=category the category again (deprecated there: read `category`)"),
  category: z.string().nullable().describe("The mode's category (FC1, FC2, FC3); with groupBy=category, the row's category"),
  numerator: z.number(),
  denominator: z.number(),
  rate: z.number().nullable(),
});

export const FailureModesMetrics = z.object({
  window: Window,
  groupBy: FailureModesGroupBy,
  source: z.enum(["code", "judge", "all"]),
  judgedTraces: z.number().describe("Traces in scope a mode-asking judge has a current verdict on: judges see a sample, so judge counts come from these"),
  scopeTraces: z
    .number()
    .describe(
      "Scored runs of the system in scope (the denominator when not grouped by agent or service, and the rate rests on code); baseline runs are not counted",
    ),
  baselineRuns: z
    .number()
    .describe("Runs tagged crux.baseline=true in the window and service: the single-agent reference, reported beside the system and counted in no rate"),
  coverage: z
    .array(Measurement.extend({ mode: z.string() }))
    .describe("Every mode of the taxonomy, whatever the grouping: measured or not, by which detectors"),
  rates: z.array(FailureModeRate),
  nextCursor: nextCursorField(),
  failed: z.object({
    traces: z.number().describe("Traces in scope whose outcome is a failure"),
    modes: z.array(z.object({ mode: z.string(), traces: z.number(), share: z.number().nullable() })),
  }),
  sources: z.array(
    z.object({
      mode: z.string(),
      source: z.string().describe("heuristic or contract (code), or the judge id"),
      kind: FindingSourceKind,
      findings: z.number(),
      traces: z.number(),
      validated: z.boolean().nullable().describe("Judges: validated for the mode against human labels; null for code sources"),
      validationReason: z.string().nullable(),
    }),
  ),
});
