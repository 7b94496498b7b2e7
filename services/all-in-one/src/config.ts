import { z } from "zod";
import { checkJudgeConfig, envBoolean, privateTargetsSetting, queuePrefixSetting } from "@crux/config";
import { apiConfigSchema } from "@crux/api";
import { receiverConfigSchema } from "@crux/receiver";
import { workerConfigSchema } from "@crux/worker";

/**
 * The embedded default: one process, PGlite in CRUX_DATA_DIR and an in-process
 * queue unless DATABASE_URL / REDIS_URL point at real servers. Auth is off by
 * default here (a laptop, a demo, a CI job), so unless CRUX_HOST says otherwise
 * it listens on 127.0.0.1 only; the start banner says which.
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
    /** This host only, by default: a local model server or webhook receiver works; the banner says so. */
    CRUX_ALLOW_PRIVATE_TARGETS: privateTargetsSetting("loopback"),
    CRUX_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  })
  .superRefine(checkJudgeConfig);
export type AllInOneConfig = z.infer<typeof allInOneConfigSchema>;
