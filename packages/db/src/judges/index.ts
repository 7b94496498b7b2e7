export {
  getJudgeSettingsRow,
  judgeSettingsStamp,
  judgeSettingsRowStamp,
  putJudgeSettings,
  readJudgeSettings,
  resolveJudgeSettings,
  type EffectiveJudgeSettings,
  type JudgeServiceDefaults,
  type JudgeSettingsInput,
  type ResolvedJudgeSettings,
  type StoredJudgeSettings,
} from "./settings.repository.ts";
export { insertJudgeCalls, judgeSpendSince, listJudgeCalls, type JudgeCallInput, type JudgeCallsQuery, type StoredJudgeCall } from "./calls.repository.ts";
export { recentAgentModels, traceModels } from "./policy.query.ts";
