import { z } from "zod";
import { checkJudgeConfig, envInt, envPort, judgeConfigSchema, privateTargetsSetting, queuePrefixSetting, validationConfigSchema } from "@crux/config";

export const workerConfigSchema = z
  .object({
    // 8: group commit (scoring/score-writer.ts) writes the sets of jobs finishing together in one transaction; bench:pipeline sustained 4,000–6,000 spans/s with 8 against 3,000–4,000 with 4.
    CRUX_WORKER_CONCURRENCY: envInt(8, 1, 256),
    /**
     * Score and judge jobs of one project running at once. Unset: the concurrency minus a
     * quarter of it (at least one slot), so another project's trace always finds a slot.
     */
    CRUX_WORKER_PROJECT_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
    /** How often the sweeper looks for dirty traces whose settle job was lost (Redis down at ingest). */
    CRUX_SWEEP_INTERVAL_MS: envInt(30_000, 100),
    /** A dirty trace quiet for this long with no settle is re-enqueued by the sweeper. */
    CRUX_SWEEP_QUIET_MS: envInt(60_000, 0),
    /** Threads that evaluate milestone expressions (off the main event loop). */
    CRUX_MILESTONE_THREADS: envInt(2, 1, 64),
    /** Limit of one milestone expression, ms; past it the expression counts as failed (not passed). */
    CRUX_MILESTONE_TIMEOUT_MS: envInt(1_000, 10, 600_000),
    /** Evaluation time one trace may spend on its milestone expressions, ms; past it the rest are not evaluated. */
    CRUX_MILESTONE_TRACE_BUDGET_MS: envInt(5_000, 10, 3_600_000),
    /** Evaluation time one project may spend per minute, ms; past it checks are not evaluated until the next minute. */
    CRUX_MILESTONE_PROJECT_BUDGET_MS: envInt(30_000, 10, 3_600_000),
    /** Limit of one judge call to the provider, ms. */
    CRUX_JUDGE_TIMEOUT_MS: envInt(60_000, 100, 600_000),
    /** Longest a judge job over its project's daily budget waits before it looks again (a raised budget resumes it). */
    CRUX_JUDGE_BUDGET_RECHECK_MS: envInt(300_000, 10, 86_400_000),
    /** How often alert rules are evaluated (one evaluation per rule per tick across all workers), ms. */
    CRUX_ALERTS_EVALUATE_INTERVAL_MS: envInt(60_000, 100, 86_400_000),
    /** How often the score rollups' delta rows are folded into their cells (one run per tick across all workers), ms. */
    CRUX_ROLLUP_COMPACT_INTERVAL_MS: envInt(1_000, 100, 3_600_000),
    /** Base URL of the API as receivers reach it, for the links in webhook payloads. Unset: http://localhost:<CRUX_API_PORT>. */
    CRUX_PUBLIC_URL: z.string().url().optional(),
    /** The API's port; the worker reads it only for the default of CRUX_PUBLIC_URL (the all-in-one process listens on it). */
    CRUX_API_PORT: envPort(8080),
    /**
     * Lock of a running job (BullMQ): a job whose worker died (crash, kill -9), e.g. a webhook delivery in
     * flight, is run again by another worker within about 1.5 times this. Applied where the queue is created.
     */
    CRUX_JOB_LOCK_MS: envInt(15_000, 1_000, 600_000),
    /** Attempts per webhook delivery, the first included; then the delivery is marked failed. */
    CRUX_WEBHOOK_MAX_ATTEMPTS: envInt(8, 1, 100),
    /** Ceiling of the first retry's wait (full jitter), doubled per retry, ms. */
    CRUX_WEBHOOK_RETRY_BASE_MS: envInt(5_000, 1, 86_400_000),
    /** Longest wait between attempts, also the cap on a receiver's Retry-After, ms. */
    CRUX_WEBHOOK_RETRY_MAX_MS: envInt(3_600_000, 1, 86_400_000),
    /** One attempt: connect, send and read the response (at most 4 KiB), ms. */
    CRUX_WEBHOOK_TIMEOUT_MS: envInt(10_000, 100, 120_000),
    /** Non-public addresses webhooks and project judge base URLs may reach (none, loopback, private); @crux/config. */
    CRUX_ALLOW_PRIVATE_TARGETS: privateTargetsSetting("none"),
  })
  .extend(judgeConfigSchema.shape)
  // Alert rules with validatedOnly judge validation with the API's bar.
  .extend(validationConfigSchema.shape);
type WorkerSettings = z.infer<typeof workerConfigSchema>;
/** What createWorker takes: the three basics, every other setting optional (its default applies). */
export type WorkerConfig = Pick<WorkerSettings, "CRUX_WORKER_CONCURRENCY" | "CRUX_SWEEP_INTERVAL_MS" | "CRUX_SWEEP_QUIET_MS"> & Partial<WorkerSettings>;

const defaults = workerConfigSchema.parse({});

type OptionalJudgeSettings =
  | "CRUX_JUDGE_PROVIDER"
  | "CRUX_JUDGE_MODEL"
  | "CRUX_JUDGE_BASE_URL"
  | "CRUX_JUDGE_API_KEY"
  | "ANTHROPIC_API_KEY"
  | "OPENAI_API_KEY"
  | "OPENAI_BASE_URL"
  | "CRUX_SECRET_KEY";

export interface ResolvedWorkerConfig
  extends
    Required<Omit<WorkerSettings, "CRUX_WORKER_PROJECT_CONCURRENCY" | "CRUX_PUBLIC_URL" | OptionalJudgeSettings>>,
    Pick<WorkerSettings, OptionalJudgeSettings> {
  CRUX_WORKER_PROJECT_CONCURRENCY: number;
  CRUX_PUBLIC_URL: string;
}

export function resolveWorkerConfig(config: WorkerConfig): ResolvedWorkerConfig {
  const merged = { ...defaults, ...Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) } as WorkerSettings;
  const concurrency = merged.CRUX_WORKER_CONCURRENCY;
  const perProject = merged.CRUX_WORKER_PROJECT_CONCURRENCY ?? Math.max(1, concurrency - Math.max(1, Math.floor(concurrency / 4)));
  // The links in webhook payloads point at the API, so by default at the port it listens on.
  const publicUrl = merged.CRUX_PUBLIC_URL ?? `http://localhost:${merged.CRUX_API_PORT}`;
  return { ...merged, CRUX_WORKER_PROJECT_CONCURRENCY: Math.min(perProject, concurrency), CRUX_PUBLIC_URL: publicUrl };
}

export const workerMainConfigSchema = workerConfigSchema
  .extend({
    DATABASE_URL: z.string().url(),
    REDIS_URL: z.string().url(),
    CRUX_QUEUE_PREFIX: queuePrefixSetting,
    CRUX_HOST: z.string().default("0.0.0.0"),
    /** /metrics, /livez, /readyz; 0 picks a free port (tests). */
    CRUX_WORKER_METRICS_PORT: envPort(9464),
    CRUX_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  })
  .superRefine(checkJudgeConfig);
