/**
 * The bar a judge must clear against human labels to count as validated for a
 * mode. Read by the API (GET /validation, the rates' validated flags) and by
 * the worker (alert rules with validatedOnly), so both decide alike.
 */
import { z } from "zod";

export const validationConfigSchema = z.object({
  /** Lowest Cohen's kappa against human labels at which a judge counts as validated for a mode. */
  CRUX_VALIDATION_KAPPA_BAR: z.coerce.number().min(-1).max(1).default(0.6),
  /** Fewest labelled traces a judge's kappa on a mode must rest on. */
  CRUX_VALIDATION_MIN_LABELS: z.coerce.number().int().min(1).max(1_000_000).default(20),
});
export type ValidationConfig = z.infer<typeof validationConfigSchema>;

export function validationBarOf(config: ValidationConfig): { kappaBar: number; minLabels: number } {
  return { kappaBar: config.CRUX_VALIDATION_KAPPA_BAR, minLabels: config.CRUX_VALIDATION_MIN_LABELS };
}
