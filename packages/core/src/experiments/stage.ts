/**
 * Where a failed run's trouble starts (docs/experiments.md §7), from its top
 * decisive-error attribution and its findings: a verification mode at that
 * point → verification; a handoff there (a handoff finding, or a handoff
 * span) → handoff; the root agent (which plans and delegates) → planning;
 * any other agent → worker.
 */
import type { FailureStage } from "./directive.ts";

const verificationModes = new Set(["FM-3.2", "FM-3.3"]);
const handoffModes = new Set(["FM-1.4", "FM-2.1", "FM-2.4", "FM-2.5"]);

export interface StageInputs {
  /** The top-ranked decisive-error attribution, if any. */
  decisive: { agent: string | null; spanId: string | null } | null;
  findings: { mode: string; agent: string | null; spanId: string }[];
  /** Agents with no parent agent: the root (planner / orchestrator). */
  rootAgents: string[];
  /** Span ids of the trace's handoffs. */
  handoffSpanIds: string[];
}

export function failureStageOf(x: StageInputs): FailureStage | null {
  const at = x.decisive;
  const here =
    at === null ? x.findings : x.findings.filter((f) => (at.spanId !== null && f.spanId === at.spanId) || (at.agent !== null && f.agent === at.agent));
  if (at === null && here.length === 0) return null;
  if (here.some((f) => verificationModes.has(f.mode))) return "verification";
  if (here.some((f) => handoffModes.has(f.mode)) || (at?.spanId != null && x.handoffSpanIds.includes(at.spanId))) return "handoff";
  const agent = at?.agent ?? here[0]?.agent ?? null;
  if (agent === null) return null;
  return x.rootAgents.includes(agent) ? "planning" : "worker";
}
