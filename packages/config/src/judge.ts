/**
 * The service default of the LLM judges (worker and API read the same
 * variables; all-in-one merges them once). No provider set means no service
 * default: a project without its own settings has judges off, and nothing fails.
 */
import { z } from "zod";

const share = z.coerce.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");

export const judgeConfigSchema = z.object({
  /** anthropic | openai (any OpenAI-compatible Chat Completions endpoint). Unset: no service default. */
  CRUX_JUDGE_PROVIDER: z.enum(["anthropic", "openai"]).optional(),
  /** The judges' model; required with CRUX_JUDGE_PROVIDER. */
  CRUX_JUDGE_MODEL: z.string().min(1).max(200).optional(),
  /** Endpoint of the provider (a local Ollama or vLLM); unset: the provider's public API (or OPENAI_BASE_URL for openai). */
  CRUX_JUDGE_BASE_URL: z.string().url().optional(),
  /** Key of the service default; unset: ANTHROPIC_API_KEY or OPENAI_API_KEY by provider. */
  CRUX_JUDGE_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  /** Share of the traces that did not fail which the judges read (failed ones are always judged); a project may set its own. */
  CRUX_JUDGE_SAMPLING: share.default(0.1),
  /** Dollars a project's judges may spend per UTC day before its judge jobs wait for the next day; a project may set its own. */
  CRUX_JUDGE_DAILY_BUDGET_USD: z.coerce.number().min(0).max(1_000_000).default(5),
  /**
   * Judge runs per minute per provider endpoint (provider + base URL), counted across every worker
   * process on the queue's backend; past it judge jobs wait for the next minute (worker).
   */
  CRUX_JUDGE_RATE_PER_MINUTE: z.coerce
    .number({ message: "must be a whole number of judge runs per minute" })
    .int("must be a whole number of judge runs per minute")
    .min(1, "must be at least 1 judge run per minute")
    .max(1_000_000, "must be at most 1000000 judge runs per minute")
    .default(60),
  /** Judge runs at once per provider endpoint in one worker process; more wait in the process (worker). */
  CRUX_JUDGE_CONCURRENCY: z.coerce
    .number({ message: "must be a whole number of judge runs at once" })
    .int("must be a whole number of judge runs at once")
    .min(1, "must be at least 1")
    .max(256, "must be at most 256")
    .default(4),
  /**
   * Secret the project's stored provider keys are encrypted with (AES-256-GCM, key derived with HKDF),
   * at least 32 characters. Unset: the embedded default keeps a generated one in CRUX_DATA_DIR; the
   * production API refuses to store a key and says so.
   */
  CRUX_SECRET_KEY: z.string().min(32, "must be at least 32 characters (e.g. `openssl rand -base64 32`)").optional(),
});
export type JudgeConfig = z.infer<typeof judgeConfigSchema>;

/**
 * Reads the service default from parsed config; throws a message naming what is missing when the
 * provider is set but the model (or, for a public endpoint, the key) is not.
 */
export function judgeServiceDefaultOf(
  config: JudgeConfig,
): { provider: "anthropic" | "openai"; model: string; baseUrl: string | null; apiKey: string | null } | null {
  const provider = config.CRUX_JUDGE_PROVIDER;
  if (provider === undefined) return null;
  const baseUrl = config.CRUX_JUDGE_BASE_URL ?? (provider === "openai" ? (config.OPENAI_BASE_URL ?? null) : null);
  const apiKey = config.CRUX_JUDGE_API_KEY ?? (provider === "anthropic" ? config.ANTHROPIC_API_KEY : config.OPENAI_API_KEY) ?? null;
  return { provider, model: config.CRUX_JUDGE_MODEL!, baseUrl, apiKey };
}

/** The same checks as a zod refinement, so loadConfig lists them with every other invalid variable. */
export function checkJudgeConfig(config: JudgeConfig, ctx: z.RefinementCtx): void {
  if (config.CRUX_JUDGE_PROVIDER === undefined) return;
  if (config.CRUX_JUDGE_MODEL === undefined) {
    ctx.addIssue({ code: "custom", path: ["CRUX_JUDGE_MODEL"], message: "is required when CRUX_JUDGE_PROVIDER is set" });
  }
  const d = judgeServiceDefaultOf({ ...config, CRUX_JUDGE_MODEL: config.CRUX_JUDGE_MODEL ?? "-" });
  if (d && d.apiKey === null && d.baseUrl === null) {
    const usual = d.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
    ctx.addIssue({
      code: "custom",
      path: ["CRUX_JUDGE_API_KEY"],
      message: `is required (or ${usual}) for the provider's public endpoint; a local endpoint (CRUX_JUDGE_BASE_URL) may go without`,
    });
  }
}

/** Policy defaults every project starts from. */
export function judgePolicyDefaultsOf(config: JudgeConfig): { samplingShare: number; dailyBudgetUsd: number } {
  return { samplingShare: config.CRUX_JUDGE_SAMPLING, dailyBudgetUsd: config.CRUX_JUDGE_DAILY_BUDGET_USD };
}

/** The limits per provider endpoint: runs per minute across processes, runs at once per process. */
export function judgeLimitsOf(config: JudgeConfig): { ratePerMinute: number; concurrency: number } {
  return { ratePerMinute: config.CRUX_JUDGE_RATE_PER_MINUTE, concurrency: config.CRUX_JUDGE_CONCURRENCY };
}
