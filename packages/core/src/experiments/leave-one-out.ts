/**
 * Leave-one-out credit Δᵢ = V(N) − V(N∖{i}) from ablation variants, paired on
 * tasks (docs/experiments.md §5). An agent whose Δ interval holds 0 is dead
 * weight; one whose interval lies below 0 is harmful.
 */
import { bootstrapOverTasks, includesZero, meanAt, standardDeviation, type Interval, type IntervalOptions } from "./interval.ts";

export type AgentVerdict = "contributes" | "dead_weight" | "harmful";

export interface LeaveOneOut {
  agent: string;
  /** Mean over paired tasks of V(N) − V(N∖{i}) (each side the mean over the task's trials). */
  delta: Interval | null;
  /** Standard deviation of the per-task differences. */
  spread: number | null;
  verdict: AgentVerdict | null;
  pairedTasks: number;
}

/** Per-task mean values of the full system and of the system without `agent`. */
export function leaveOneOut(agent: string, full: ReadonlyMap<string, number>, without: ReadonlyMap<string, number>, options: IntervalOptions): LeaveOneOut {
  const tasks = [...full.keys()].filter((t) => without.has(t)).sort();
  const deltas = tasks.map((t) => (full.get(t) as number) - (without.get(t) as number));
  const delta = bootstrapOverTasks(deltas.length, (ix) => meanAt(deltas, ix), options);
  return {
    agent,
    delta,
    spread: deltas.length === 0 ? null : standardDeviation(deltas),
    verdict: delta === null ? null : delta.upper < 0 ? "harmful" : includesZero(delta) ? "dead_weight" : "contributes",
    pairedTasks: tasks.length,
  };
}
