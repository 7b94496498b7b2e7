import { z } from "zod";
import {
  checkJudgeConfig,
  envBoolean,
  envInt,
  envPort,
  judgeConfigSchema,
  privateTargetsSetting,
  queuePrefixSetting,
  validationConfigSchema,
} from "@crux/config";

export const apiConfigSchema = z
  .object({
    /** Listen address; unset: 0.0.0.0 with auth on, 127.0.0.1 with auth off (bindHostOf). */
    CRUX_HOST: z.string().optional(),
    CRUX_ALLOW_PRIVATE_TARGETS: privateTargetsSetting("none"),
    CRUX_API_PORT: envPort(8080),
    CRUX_DEFAULT_PROJECT: z.string().default("default"),
    /** After POST /webhooks/:id/rotate-secret, how long deliveries are still signed with the old secret too (0: not at all). */
    CRUX_WEBHOOK_SECRET_OVERLAP_MS: envInt(86_400_000, 0, 30 * 86_400_000),
  })
  .extend(judgeConfigSchema.shape)
  .extend(validationConfigSchema.shape);
export type ApiConfig = z.infer<typeof apiConfigSchema>;

export const apiMainConfigSchema = apiConfigSchema
  .extend({
    DATABASE_URL: z.string().url(),
    /** For the re-score job of POST /traces/:id/outcome and the judge job of POST /traces/:id/judge; unset = the worker's sweeper re-scores, and traces cannot be judged on request. */
    REDIS_URL: z.string().url().optional(),
    CRUX_QUEUE_PREFIX: queuePrefixSetting,
    CRUX_AUTH: envBoolean(true),
    CRUX_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /**
     * How long one database statement of a request may run (lock waits included) before Postgres
     * cancels it and the request answers 503; 0: no limit. Without one, a search over a large
     * project kept its connection busy after the client had given up.
     */
    CRUX_API_STATEMENT_TIMEOUT_MS: envInt(30_000, 0, 3_600_000),
  })
  .superRefine(checkJudgeConfig);
