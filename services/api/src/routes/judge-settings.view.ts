/** GET /judge-settings: the stored settings (no key), what they resolve to, today's spend and the self-preference warning. */
import type { JudgeSettingsResponse } from "@crux/contracts";
import { judgeBudgetDay } from "@crux/core";
import { judgeSpendSince, recentAgentModels, type Database, type ResolvedJudgeSettings } from "@crux/db";
import { modelFamily } from "@crux/judges";

type Kinds = JudgeSettingsResponse["stored"]["kinds"];

/**
 * A base URL as shown: without user:password@ (such URLs are refused on write, but one stored
 * earlier, or the operator's own from the environment, is never shown with its password).
 */
function shownUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    const u = new URL(url);
    if (u.username === "" && u.password === "") return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return null;
  }
}

/** A warning when the judge's model family is one the project's agents use (packages/judges' families), else null. */
function projectSelfPreference(judgeModel: string, agentModels: readonly string[]): string | null {
  const family = modelFamily(judgeModel);
  const same = family === null ? [] : agentModels.filter((m) => modelFamily(m) === family);
  if (same.length === 0) return null;
  return `the judge model ${judgeModel} is of the ${family} family, which this project's agents use (${same.slice(0, 5).join(", ")}): a judge tends to favour output of its own family; prefer a judge of another family`;
}

export async function judgeSettingsView(
  database: Database,
  projectId: string,
  settings: ResolvedJudgeSettings,
  opts: { now: number; canStoreApiKey: boolean },
): Promise<JudgeSettingsResponse> {
  const { stored, effective } = settings;
  const day = judgeBudgetDay(opts.now);
  const spentUsd = await judgeSpendSince(database, projectId, new Date(day.startMs));
  const warning = effective.model === null ? null : projectSelfPreference(effective.model, await recentAgentModels(database, projectId));
  return {
    stored: {
      enabled: stored.enabled,
      provider: stored.provider,
      model: stored.model,
      baseUrl: shownUrl(stored.baseUrl),
      apiKeySet: stored.apiKeySet,
      apiKeyLast4: stored.apiKeyLast4,
      samplingShare: stored.samplingShare,
      dailyBudgetUsd: stored.dailyBudgetUsd,
      rubric: stored.rubric,
      kinds: stored.kinds as Kinds,
      updatedAt: stored.updatedAt?.toISOString() ?? null,
    },
    effective: {
      enabled: effective.enabled,
      reason: effective.reason,
      source: effective.source,
      provider: effective.provider,
      model: effective.model,
      baseUrl: shownUrl(effective.baseUrl),
      samplingShare: effective.samplingShare,
      dailyBudgetUsd: effective.dailyBudgetUsd,
      kinds: effective.kinds as Kinds,
    },
    budget: {
      day: new Date(day.startMs).toISOString().slice(0, 10),
      spentUsd,
      dailyBudgetUsd: effective.dailyBudgetUsd,
      pausedUntil: spentUsd >= effective.dailyBudgetUsd ? new Date(day.endMs).toISOString() : null,
    },
    selfPreferenceWarning: warning,
    canStoreApiKey: opts.canStoreApiKey,
  };
}
