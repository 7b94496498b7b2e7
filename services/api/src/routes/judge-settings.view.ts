/** GET /judge-settings: the stored settings (no key), what they resolve to, today's spend and the self-preference warning. */
import type { JudgeSettingsResponse } from "@crux/contracts";
import { judgeBudgetDay, selfPreferenceWarning } from "@crux/core";
import { judgeSpendSince, recentAgentModels, type Database, type ResolvedJudgeSettings } from "@crux/db";

type Kinds = JudgeSettingsResponse["stored"]["kinds"];

export async function judgeSettingsView(
  database: Database,
  projectId: string,
  settings: ResolvedJudgeSettings,
  opts: { now: number; canStoreApiKey: boolean },
): Promise<JudgeSettingsResponse> {
  const { stored, effective } = settings;
  const day = judgeBudgetDay(opts.now);
  const spentUsd = await judgeSpendSince(database, projectId, new Date(day.startMs));
  const warning = effective.model === null ? null : selfPreferenceWarning(effective.model, await recentAgentModels(database, projectId));
  return {
    stored: {
      enabled: stored.enabled,
      provider: stored.provider,
      model: stored.model,
      baseUrl: stored.baseUrl,
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
      baseUrl: effective.baseUrl,
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
