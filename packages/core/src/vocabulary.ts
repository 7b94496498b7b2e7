/**
 * The vocabulary the API's wire contracts share with the scoring code, declared once in core:
 * the MAST modes and categories, the alert metrics and the per-agent counters. @crux/contracts
 * imports it through this entry point only (a dependency rule enforces it), so what reaches the
 * browser UI is these constants and types, never the scorers.
 */
export { categoryOf, mastCategories, mastModeIds, type MastCategory, type MastModeId } from "./mast/modes.ts";
export type { AlertMetric, AlertMetricKind } from "./alerts/rule.ts";
export type { AgentCounters } from "./attribution/types.ts";
