import { z } from "zod";
import { checkJudgeConfig, envBoolean, queuePrefixSetting } from "@crux/config";
import { apiConfigSchema } from "@crux/api";
import { receiverConfigSchema } from "@crux/receiver";
import { workerConfigSchema } from "@crux/worker";

/**
 * The embedded default: one process, PGlite in CRUX_DATA_DIR and an in-process
 * queue unless DATABASE_URL / REDIS_URL point at real servers. Auth is off by
 * default here (a laptop, a demo, a CI job) and the start banner says so.
 */
export const allInOneConfigSchema = receiverConfigSchema
  .extend(workerConfigSchema.shape)
  .extend(apiConfigSchema.shape)
  .extend({
    CRUX_DATA_DIR: z.string().default("./.crux"),
    DATABASE_URL: z.string().url().optional(),
    REDIS_URL: z.string().url().optional(),
    CRUX_QUEUE_PREFIX: queuePrefixSetting,
    CRUX_AUTH: envBoolean(false),
    CRUX_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  })
  .superRefine(checkJudgeConfig);
export type AllInOneConfig = z.infer<typeof allInOneConfigSchema>;
