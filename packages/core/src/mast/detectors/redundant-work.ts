/**
 * Redundant-work signal, reported next to the modes (docs/failure-modes.md §4):
 * two agents doing the same sub-task (same tool, same arguments).
 */
import type { Step, TraceTrajectories } from "../../trajectory/types.ts";
import { quote, type Signal } from "../finding.ts";
import { stepSignature } from "../../text/step-signature.ts";

export function detectRedundantWork(t: TraceTrajectories): Signal[] {
  const groups = new Map<string, Step[]>();
  for (const s of t.steps) {
    if (s.kind !== "tool" || s.agent === null) continue;
    const sig = stepSignature(s);
    if (sig === null) continue;
    const group = groups.get(sig);
    if (group === undefined) groups.set(sig, [s]);
    else group.push(s);
  }
  const signals: Signal[] = [];
  for (const steps of groups.values()) {
    const agents = [...new Set(steps.map((s) => s.agent as string))];
    if (agents.length < 2) continue;
    const first = steps[0] as Step;
    signals.push({
      kind: "redundant_work",
      agents,
      spanIds: steps.map((s) => s.spanId),
      stepIndices: steps.map((s) => s.index),
      confidence: 0.6,
      evidence: `${agents.join(" and ")} each ran ${first.toolName}(${quote(first.args ?? "", 60)})`,
    });
  }
  return signals;
}
