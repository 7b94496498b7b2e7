/**
 * Alert rules as plain data (the API's AlertRuleBody has the same shape):
 * what is measured, over which scope and window, and when it counts as
 * firing. Evaluated by evaluateAlertRule (evaluate.ts); the worker reads the
 * readings from stored scores.
 */
import type { MastCategory, MastModeId } from "../mast/modes.ts";

/** What a rule measures over one window. Every metric is a ratio with its numerator and denominator. */
export type AlertMetric =
  /** Traces in scope with at least one finding of the mode / traces in scope (docs/metrics.md §11). */
  | { kind: "failure_mode_rate"; mode: MastModeId; validatedOnly?: boolean }
  /** The same for any mode of a category (FC1, FC2, FC3). */
  | { kind: "failure_category_rate"; category: MastCategory; validatedOnly?: boolean }
  /** Successful runs / runs with an outcome (docs/metrics.md §10). */
  | { kind: "success_rate" }
  /** Tokens / traces: the agent's (agent scope) or every agent's tokens per trace. */
  | { kind: "tokens_per_trace" }
  /** Known cost in USD / traces, as tokens_per_trace. */
  | { kind: "cost_per_trace" }
  /** Observed mean cost / baseline mean cost over the runs with a known baseline (docs/metrics.md §4). */
  | { kind: "cost_multiplier" }
  /** Spans in error / spans (docs/metrics.md §2), of the agent or of every agent. */
  | { kind: "error_rate" };

export type AlertMetricKind = AlertMetric["kind"];

/**
 * When a rule holds. `threshold`: the current value compared with `value`.
 * `change`: the relative change against the previous window of the same
 * length, (current − previous) / previous, compared with `by` (0.5 = a 50 %
 * rise, or drop).
 */
export type AlertCondition = { kind: "threshold"; op: "above" | "below"; value: number } | { kind: "change"; direction: "rise" | "drop"; by: number };

export interface AlertScope {
  service?: string | null | undefined;
  /** One agent: its own findings, usage and errors, over the traces it took part in. */
  agent?: string | null | undefined;
}

export interface AlertRuleSpec {
  metric: AlertMetric;
  condition: AlertCondition;
  scope: AlertScope;
  /** Window length in ms; the previous window is the one just before it. */
  windowMs: number;
  /** A window with fewer samples (traces, or runs with an outcome or a baseline) decides nothing. */
  minSamples: number;
}

/** One window's measurement. value null: nothing to divide by (or the metric is not measured in scope). */
export interface MetricReading {
  value: number | null;
  numerator: number;
  denominator: number;
  /** What minSamples is compared with: traces (rates, per-trace figures), runs with an outcome or a known baseline. */
  samples: number;
}

export type AlertState = "ok" | "firing";

export type AlertEventType = "alert.firing" | "alert.resolved";

/** One transition of a rule as stored and delivered; `sequence` numbers the rule's transitions from 1. */
export interface AlertEventRecord {
  id: string;
  type: AlertEventType;
  sequence: number;
  createdAt: Date;
  current: MetricReading;
  /** The previous window's reading (change conditions), else null. */
  previous: MetricReading | null;
  change: number | null;
  windowFromMs: number;
  windowToMs: number;
  exampleTraceIds: string[];
}
