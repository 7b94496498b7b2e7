import { z } from "zod";
import { checkJudgeConfig, envBoolean, envInt, envPort, judgeConfigSchema, queuePrefixSetting } from "@crux/config";

export const apiConfigSchema = z
  .object({
    CRUX_HOST: z.string().default("0.0.0.0"),
    CRUX_API_PORT: envPort(8080),
    CRUX_DEFAULT_PROJECT: z.string().default("default"),
    /** Lowest Cohen's kappa against human labels at which a judge counts as validated for a mode. */
    CRUX_VALIDATION_KAPPA_BAR: z.coerce.number().min(-1).max(1).default(0.6),
    /** Fewest labelled traces a judge's kappa on a mode must rest on. */
    CRUX_VALIDATION_MIN_LABELS: envInt(20, 1, 1_000_000),
  })
  .extend(judgeConfigSchema.shape);
export type ApiConfig = z.infer<typeof apiConfigSchema>;

/** The validation bar of the API's config (GET /validation, the rates' validated flags). */
export function validationBarOf(config: Pick<ApiConfig, "CRUX_VALIDATION_KAPPA_BAR" | "CRUX_VALIDATION_MIN_LABELS">): { kappaBar: number; minLabels: number } {
  return { kappaBar: config.CRUX_VALIDATION_KAPPA_BAR, minLabels: config.CRUX_VALIDATION_MIN_LABELS };
}

export const apiMainConfigSchema = apiConfigSchema
  .extend({
    DATABASE_URL: z.string().url(),
    /** For the re-score job of POST /traces/:id/outcome and the judge job of POST /traces/:id/judge; unset = the worker's sweeper re-scores, and traces cannot be judged on request. */
    REDIS_URL: z.string().url().optional(),
    CRUX_QUEUE_PREFIX: queuePrefixSetting,
    CRUX_AUTH: envBoolean(true),
    CRUX_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  })
  .superRefine(checkJudgeConfig);
