/** Error steps a run never recovered from, and the steps that built on them: read by the cascade, error-propagation and premature-stop detectors and by decisive-error attribution. */
import type { Step, TraceTrajectories } from "../trajectory/types.ts";

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
