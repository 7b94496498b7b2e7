/**
 * Cross-cutting signals reported next to the modes (docs/failure-modes.md §4): cascades (an
 * error that later steps build on without re-checking) and redundant work
 * (two agents doing the same sub-task: same tool, same arguments).
 */
import type { Step, TraceTrajectories } from "../trajectory/types.ts";
import { quote, type Signal } from "./finding.ts";
import { stepSignature } from "./step-signature.ts";

/** Error steps with no later successful step of the same agent and tool (an LLM error: same agent, any later LLM success). */
export function unrecoveredErrors(t: TraceTrajectories, kinds: Array<Step["kind"]> = ["tool", "llm"]): Step[] {
  return t.steps.filter((e, pos) => {
    if (!e.isError || !kinds.includes(e.kind)) return false;
    const recovers = (s: Step): boolean =>
      s.index > e.index && !s.isError && s.agentKey === e.agentKey && s.kind === e.kind && (e.kind === "llm" || s.toolName === e.toolName);
    // Steps after the error first: a retry usually follows it closely (which steps are checked first changes no answer).
    for (let i = pos + 1; i < t.steps.length; i++) if (recovers(t.steps[i]!)) return false;
    for (let i = 0; i < pos; i++) if (recovers(t.steps[i]!)) return false;
    return true;
  });
}

/** Steps that build on an error step: the same agent's later steps, and steps of agents it messaged afterwards. */
export function stepsBuildingOn(t: TraceTrajectories, e: Step): Step[] {
  const informed = new Set<string>(e.agent === null ? [] : [e.agent]);
  for (const m of t.messages) if (m.timeNs >= e.endNs && m.from !== null && informed.has(m.from) && m.to !== null) informed.add(m.to);
  return t.steps.filter((s) => s.index > e.index && s.startNs >= e.startNs && s.agent !== null && informed.has(s.agent));
}

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
