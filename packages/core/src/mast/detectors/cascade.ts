/**
 * Cascade signal, reported next to the modes (docs/failure-modes.md §4): an
 * error that later steps build on without re-checking.
 */
import type { TraceTrajectories } from "../../trajectory/types.ts";
import { quote, type Signal } from "../finding.ts";
import { stepsBuildingOn, unrecoveredErrors } from "../unrecovered-errors.ts";

export function detectCascades(t: TraceTrajectories): Signal[] {
  const signals: Signal[] = [];
  for (const e of unrecoveredErrors(t)) {
    const downstream = stepsBuildingOn(t, e);
    if (downstream.length === 0) continue;
    const agents = [...new Set([e.agent ?? "?", ...downstream.map((s) => s.agent as string)])];
    signals.push({
      kind: "cascade",
      agents,
      spanIds: [e.spanId, ...downstream.map((s) => s.spanId)],
      stepIndices: [e.index, ...downstream.map((s) => s.index)],
      confidence: 0.5,
      evidence: `${e.agent ?? "?"} ${e.toolName ?? e.kind} failed at step ${e.index}${e.errorType ? ` (${quote(e.errorType, 40)})` : ""} and was not retried; ${downstream.length} later step(s) by ${agents.join(", ")} continued on it`,
    });
  }
  return signals;
}
