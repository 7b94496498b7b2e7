import { z } from "zod";
import { envInt, queuePrefixSetting } from "@crux/config";

export const workerConfigSchema = z.object({
  CRUX_WORKER_CONCURRENCY: envInt(4, 1, 256),
  /** How often the sweeper looks for dirty traces whose settle job was lost (Redis down at ingest). */
  CRUX_SWEEP_INTERVAL_MS: envInt(30_000, 100),
  /** A dirty trace quiet for this long with no settle is re-enqueued by the sweeper. */
  CRUX_SWEEP_QUIET_MS: envInt(60_000, 0),
});
export type WorkerConfig = z.infer<typeof workerConfigSchema>;

export const workerMainConfigSchema = workerConfigSchema.extend({
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url(),
  CRUX_QUEUE_PREFIX: queuePrefixSetting,
  CRUX_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
