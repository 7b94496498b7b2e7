export { createJudgeSuite, judgeDefinitions, type JudgeRunResult, type JudgeSuite, type JudgeSuiteOptions, type SuiteJudge } from "./suite.ts";
export type { JudgeRunInput } from "./judges/judge.ts";
export { callsOf, JudgeUnavailableError } from "./errors.ts";
export { judgeCallCost } from "./prices.ts";
export { modelFamily, selfPreferenceWarning } from "./family.ts";
export { DEFAULT_BASE_URLS } from "./provider.ts";
