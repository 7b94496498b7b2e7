/**
 * Hysteresis over alert rules: a rule fires once when its condition starts
 * to hold and resolves once when it stops; an evaluation that finds the same
 * state as stored decides nothing. A window with too few samples decides
 * nothing either (no alert on 2 traces, and a firing rule is not resolved by
 * a quiet window). Pure: the readings and the stored state are arguments.
 */
import type { AlertCondition, AlertRuleSpec, AlertState, MetricReading } from "./rule.ts";

export interface AlertEvaluation {
  /** fire: ok → firing; resolve: firing → ok; none: no transition. */
  action: "fire" | "resolve" | "none";
  /** Whether the condition holds; null when the windows had too few samples or nothing to compare. */
  holds: boolean | null;
  /** Relative change against the previous window (change conditions); null when not computed or undefined (previous 0). */
  change: number | null;
  /** Why nothing was decided, or what held; for logs and the event. */
  reason: string;
}

const EPSILON = 1e-9;

/** (current − previous) / previous; ±Infinity when previous is 0 and current is not, 0 when both are. */
export function relativeChange(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : current > 0 ? Infinity : -Infinity;
  return (current - previous) / Math.abs(previous);
}

function conditionHolds(condition: AlertCondition, current: number, previous: number | null): { holds: boolean | null; change: number | null } {
  switch (condition.kind) {
    case "threshold":
      return { holds: condition.op === "above" ? current > condition.value : current < condition.value, change: null };
    case "change": {
      if (previous === null) return { holds: null, change: null };
      const change = relativeChange(current, previous);
      // Ratios of counts rarely divide exactly (0.3 / 0.2 − 1 = 0.4999…): "at least by" tolerates rounding.
      const holds = condition.direction === "rise" ? change >= condition.by - EPSILON : change <= -condition.by + EPSILON;
      return { holds, change: Number.isFinite(change) ? change : null };
    }
  }
}

export function evaluateAlertRule(
  rule: Pick<AlertRuleSpec, "condition" | "minSamples">,
  current: MetricReading,
  previous: MetricReading | null,
  state: AlertState,
): AlertEvaluation {
  const none = (reason: string, holds: boolean | null = null, change: number | null = null): AlertEvaluation => ({ action: "none", holds, change, reason });
  if (current.samples < rule.minSamples) return none(`${current.samples} samples in the window, fewer than ${rule.minSamples}`);
  if (current.value === null) return none("no value in the window (nothing to divide by, or not measured)");
  let previousValue: number | null = null;
  if (rule.condition.kind === "change") {
    if (previous === null || previous.samples < rule.minSamples) {
      return none(`${previous?.samples ?? 0} samples in the previous window, fewer than ${rule.minSamples}`);
    }
    if (previous.value === null) return none("no value in the previous window");
    previousValue = previous.value;
  }
  const { holds, change } = conditionHolds(rule.condition, current.value, previousValue);
  if (holds === null) return none("nothing to compare with");
  if (holds && state === "ok") return { action: "fire", holds, change, reason: "the condition started to hold" };
  if (!holds && state === "firing") return { action: "resolve", holds, change, reason: "the condition stopped holding" };
  return none(holds ? "still holds (already firing)" : "does not hold", holds, change);
}

/** The windows a rule is evaluated over at `nowMs`: [now − w, now) and the one before it. */
export function alertWindows(windowMs: number, nowMs: number): { current: { fromMs: number; toMs: number }; previous: { fromMs: number; toMs: number } } {
  return {
    current: { fromMs: nowMs - windowMs, toMs: nowMs },
    previous: { fromMs: nowMs - 2 * windowMs, toMs: nowMs - windowMs },
  };
}
