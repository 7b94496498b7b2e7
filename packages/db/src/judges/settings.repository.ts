/**
 * A project's judge settings and what they resolve to: its own model (provider,
 * base URL, model, key), else the service default, else none (judges off, with
 * the reason). Policy fields (sampling share, daily budget, rubric, kinds) fall
 * back to the service's defaults one by one. The provider key is sealed before
 * it is written and opened only here; it is never returned to a caller that
 * does not ask for the model (the API asks for the view only).
 */
import { PermanentError } from "@crux/core";
import { eq, sql } from "drizzle-orm";
import { queryRows, type Database } from "../client.ts";
import { judgeSettings, type JudgeSettingsRow } from "../schema/judges.ts";
import type { SecretBox } from "../secret-box.ts";

type Provider = "anthropic" | "openai";

/** What the service was configured with (env), shaped as packages/config reads it. */
export interface JudgeServiceDefaults {
  model: { provider: Provider; model: string; baseUrl: string | null; apiKey: string | null } | null;
  samplingShare: number;
  dailyBudgetUsd: number;
}

export interface JudgeSettingsInput {
  enabled: boolean;
  provider: Provider | null;
  model: string | null;
  baseUrl: string | null;
  /** undefined: keep the stored key; null: remove it; a string: store it (sealed). */
  apiKey?: string | null | undefined;
  samplingShare: number | null;
  dailyBudgetUsd: number | null;
  rubric: string | null;
  kinds: string[] | null;
}

/** The settings as the project stored them (no key, only whether one is set). */
export interface StoredJudgeSettings extends Omit<JudgeSettingsInput, "apiKey"> {
  apiKeySet: boolean;
  apiKeyLast4: string | null;
  version: number;
  updatedAt: Date | null;
}

export interface EffectiveJudgeSettings {
  enabled: boolean;
  /** Why judges are off; null when enabled. */
  reason: string | null;
  /** Where the model comes from. */
  source: "project" | "service" | "none";
  provider: Provider | null;
  model: string | null;
  baseUrl: string | null;
  samplingShare: number;
  dailyBudgetUsd: number;
  rubric: string | null;
  kinds: string[] | null;
  /** Changes whenever anything above (or the key) changes: the worker's suite cache key. */
  fingerprint: string;
}

export interface ResolvedJudgeSettings {
  stored: StoredJudgeSettings;
  effective: EffectiveJudgeSettings;
  /** The decrypted model settings when enabled (worker only); never serialized. */
  credentials: { provider: Provider; model: string; baseUrl: string | null; apiKey: string } | null;
}

function storedOf(row: JudgeSettingsRow | undefined): StoredJudgeSettings {
  return {
    enabled: row?.enabled ?? true,
    provider: (row?.provider as Provider | null | undefined) ?? null,
    model: row?.model ?? null,
    baseUrl: row?.baseUrl ?? null,
    apiKeySet: (row?.apiKeyCiphertext ?? null) !== null,
    apiKeyLast4: row?.apiKeyLast4 ?? null,
    samplingShare: row?.samplingShare ?? null,
    dailyBudgetUsd: row?.dailyBudgetUsd ?? null,
    rubric: row?.rubric ?? null,
    kinds: row?.kinds ?? null,
    version: row?.version ?? 0,
    updatedAt: row?.updatedAt ?? null,
  };
}

function modelOf(
  row: JudgeSettingsRow | undefined,
  defaults: JudgeServiceDefaults,
  box: SecretBox | null,
): { source: EffectiveJudgeSettings["source"]; model: ResolvedJudgeSettings["credentials"]; problem: string | null } {
  if (row?.provider) {
    const base = { provider: row.provider as Provider, model: row.model ?? "", baseUrl: row.baseUrl };
    if (row.apiKeyCiphertext === null) {
      // A local endpoint (Ollama, vLLM) may need no key; a public one does.
      if (row.baseUrl !== null) return { source: "project", model: { ...base, apiKey: "" }, problem: null };
      return {
        source: "project",
        model: null,
        problem: `no API key stored for the project's ${row.provider} endpoint: PUT /api/v1/judge-settings with apiKey`,
      };
    }
    if (box === null) return { source: "project", model: null, problem: "the stored API key cannot be read: CRUX_SECRET_KEY is not set on this service" };
    try {
      return { source: "project", model: { ...base, apiKey: box.open(row.apiKeyCiphertext) }, problem: null };
    } catch {
      return {
        source: "project",
        model: null,
        problem: "the stored API key cannot be decrypted with this service's CRUX_SECRET_KEY (it was changed): PUT the key again",
      };
    }
  }
  if (defaults.model) return { source: "service", model: { ...defaults.model, apiKey: defaults.model.apiKey ?? "" }, problem: null };
  return {
    source: "none",
    model: null,
    problem: "no judge model is configured: set provider and model with PUT /api/v1/judge-settings, or CRUX_JUDGE_PROVIDER and CRUX_JUDGE_MODEL on the service",
  };
}

export function resolveJudgeSettings(row: JudgeSettingsRow | undefined, defaults: JudgeServiceDefaults, box: SecretBox | null): ResolvedJudgeSettings {
  const stored = storedOf(row);
  const { source, model, problem } = modelOf(row, defaults, box);
  let reason = problem;
  if (!stored.enabled) reason = "judges are switched off for this project (PUT /api/v1/judge-settings with enabled: true)";
  else if (stored.kinds !== null && stored.kinds.length === 0) reason = "no judge kind is enabled (kinds is empty)";
  const effective: Omit<EffectiveJudgeSettings, "fingerprint"> = {
    enabled: reason === null,
    reason,
    source,
    provider: model?.provider ?? (source === "project" ? stored.provider : null),
    model: model?.model ?? (source === "project" ? stored.model : null),
    baseUrl: model?.baseUrl ?? (source === "project" ? stored.baseUrl : null),
    samplingShare: stored.samplingShare ?? defaults.samplingShare,
    dailyBudgetUsd: stored.dailyBudgetUsd ?? defaults.dailyBudgetUsd,
    rubric: stored.rubric,
    kinds: stored.kinds,
  };
  // The ciphertext changes with every stored key (random IV), so a new key makes a new fingerprint without the key in it.
  const fingerprint = JSON.stringify([effective, row?.apiKeyCiphertext ?? null]);
  return { stored, effective: { ...effective, fingerprint }, credentials: reason === null ? model : null };
}

export async function getJudgeSettingsRow(database: Database, projectId: string): Promise<JudgeSettingsRow | undefined> {
  const [row] = await database.db.select().from(judgeSettings).where(eq(judgeSettings.projectId, projectId)).limit(1);
  return row;
}

/**
 * What changes with every write of the project's settings row: its version and updated_at (a row
 * deleted and written again restarts at version 1, but not at the same instant); "none" when the
 * project has no row. One primary-key read of two small columns: the worker checks it per job and
 * resolves the row (and opens its key) only when it changed.
 */
export async function judgeSettingsStamp(database: Database, projectId: string): Promise<string> {
  const [row] = await queryRows(database, { text: judgeSettingsStampStatement, values: [projectId] });
  return String(row?.[0] ?? "none");
}

/**
 * The stamp as SQL text over a parameter holding the project id (`projectParam`, e.g. "$1"), so a
 * read the job makes anyway (readScoreJobState) carries it.
 * Milliseconds since the epoch, truncated as a JS Date of the column truncates them.
 */
export function judgeSettingsStampText(projectParam: string): string {
  return `coalesce((SELECT j.version::text || '@' || floor(extract(epoch FROM j.updated_at) * 1000)::bigint::text
    FROM judge_settings j WHERE j.project_id = ${projectParam}), 'none')`;
}

const judgeSettingsStampStatement = `SELECT ${judgeSettingsStampText("$1")}`;

/** The stamp of a row as read whole (judgeSettingsStamp's value for it). */
export function judgeSettingsRowStamp(row: JudgeSettingsRow | undefined): string {
  return row ? stampOf(row) : "none";
}

const stampOf = (row: { version: number; updatedAt: Date }) => `${row.version}@${row.updatedAt.getTime()}`;

export async function readJudgeSettings(
  database: Database,
  projectId: string,
  defaults: JudgeServiceDefaults,
  box: SecretBox | null,
): Promise<ResolvedJudgeSettings> {
  return resolveJudgeSettings(await getJudgeSettingsRow(database, projectId), defaults, box);
}

/**
 * Replaces the project's settings. A new key is sealed with `box`; without one a key cannot be
 * stored (PermanentError "secret_key_missing"), and nothing is written.
 */
export async function putJudgeSettings(database: Database, projectId: string, input: JudgeSettingsInput, box: SecretBox | null): Promise<void> {
  let key: { apiKeyCiphertext: string | null; apiKeyLast4: string | null } | null = null;
  if (input.apiKey === null) key = { apiKeyCiphertext: null, apiKeyLast4: null };
  else if (input.apiKey !== undefined) {
    if (box === null) {
      throw new PermanentError(
        "secret_key_missing",
        "cannot store an API key: CRUX_SECRET_KEY is not set on the API, so the key could not be encrypted at rest",
      );
    }
    key = { apiKeyCiphertext: box.seal(input.apiKey), apiKeyLast4: input.apiKey.slice(-4) };
  }
  const fields = {
    enabled: input.enabled,
    provider: input.provider,
    model: input.model,
    baseUrl: input.baseUrl,
    samplingShare: input.samplingShare,
    dailyBudgetUsd: input.dailyBudgetUsd,
    rubric: input.rubric,
    kinds: input.kinds,
  };
  await database.db
    .insert(judgeSettings)
    .values({ projectId, ...fields, ...(key ?? {}) })
    .onConflictDoUpdate({
      target: judgeSettings.projectId,
      set: { ...fields, ...(key ?? {}), version: sql`${judgeSettings.version} + 1`, updatedAt: sql`now()` },
    });
}
