/**
 * One meaning of cost across the API, labelled by its field name:
 *
 * - `costUsd`: Crux's cost in USD. Per span with counted usage: the cost the
 *   tracer reported, when it reported one; else the span's tokens priced from
 *   the price table (the project's prices over the seeded defaults). Summed per
 *   agent or trace over the counted spans (nested duplicates and run totals
 *   excluded); null when any counted tokens could not be priced (the model is
 *   not in the table: see `unpricedModels`), never a partial sum passed off as
 *   the total. Computed by the worker when it scores the trace.
 * - `reportedCostUsd`: only on a span of the span tree: the cost the tracer
 *   put on that span, as it was sent (null when none), whether or not it counts.
 */
import { z } from "zod";

export const costUsdMeaning =
  "USD: per counted span the tracer-reported cost when reported, else tokens priced from the price table; summed; null when some tokens could not be priced (see unpricedModels)";

/** Crux's cost (see the module comment), null when some tokens are unpriced. */
export const CostUsd = () => z.number().nullable().describe(costUsdMeaning);

/** The cost a tracer reported on one span, as sent. */
export const ReportedCostUsd = () => z.number().nullable().describe("USD the tracer reported on this span, as sent; null when none (not Crux's costUsd)");
