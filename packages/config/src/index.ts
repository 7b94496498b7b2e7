/**
 * Config loading shared by every service entry point (docs/engineering.md §3): each
 * service declares its own zod schema; main.ts parses process.env once and
 * fails fast listing every problem. Nothing below main.ts reads env.
 */
import { z } from "zod";

/** "true"/"false" (also 1/0, yes/no) → boolean, so no string comparisons leak into code. */
export const envBoolean = (defaultValue: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no"])
    .optional()
    .transform((v) => (v === undefined ? defaultValue : v === "true" || v === "1" || v === "yes"));

export const envInt = (defaultValue: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(defaultValue);

export const envPort = (defaultValue: number) => envInt(defaultValue, 0, 65_535);

/**
 * Redis key prefix of the job queues. Every process sharing a Redis must use the
 * same one; a different prefix keeps deployments (or a benchmark) apart.
 */
export const queuePrefixSetting = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, '_', '.', '-' only (at most 64)")
  .default("crux");

/**
 * CRUX_ALLOW_PRIVATE_TARGETS: which non-public addresses outbound requests (webhooks, judge
 * providers) may reach. `none`; `loopback` (this host: a local model server or receiver);
 * `private` (loopback and the private networks, e.g. an in-cluster receiver). Reserved ranges
 * (multicast, broadcast, documentation, ...) never. A judge base URL the operator sets in the
 * environment is trusted whatever this says; a webhook reaches a private target only where this
 * allows it and the webhook's allowPrivateTargets asks for it.
 */
export const privateTargetsSetting = (defaultValue: "none" | "loopback" | "private") => z.enum(["none", "loopback", "private"]).default(defaultValue);

/**
 * The address a service listens on: CRUX_HOST when set; otherwise every interface when API keys
 * are required, and only this host when they are not (without keys, anyone who reaches the port
 * reads everything).
 */
export function bindHostOf(host: string | undefined, authRequired: boolean): string {
  return host ?? (authRequired ? "0.0.0.0" : "127.0.0.1");
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n${issues.map((i) => `  - ${i}`).join("\n")}`);
  }
}

/** Parse env against a schema; throws ConfigError listing every invalid variable. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== "") cleaned[k] = v;
  const parsed = schema.safeParse(cleaned);
  if (parsed.success) return parsed.data;
  throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`));
}

export { judgeConfigSchema, judgeServiceDefaultOf, judgePolicyDefaultsOf, judgeLimitsOf, checkJudgeConfig, type JudgeConfig } from "./judge.ts";
export { validationBarOf, validationConfigSchema, type ValidationConfig } from "./validation.ts";
