export type * from "./rule.ts";
export { alertWindows, evaluateAlertRule, relativeChange, type AlertEvaluation } from "./evaluate.ts";
