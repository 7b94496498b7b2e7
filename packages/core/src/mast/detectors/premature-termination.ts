/**
 * FM-3.1 premature termination: the run stopped by its own decision (no cap,
 * no crash at the end) while required milestones were unmet, or an agent
 * stopped with its contract's completion condition false. Never on a run
 * whose outcome is success: a run that did its task did not stop too early,
 * whatever a milestone (required unless it says otherwise) or condition says.
 */
import type { TraceTrajectories } from "../../trajectory/types.ts";
import { contractFor, type AgentContract } from "../contracts.ts";
import { finding, type DetectorFinding } from "../finding.ts";
import { notEvaluatedReasonOf, type MilestoneEvaluator, type MilestoneScore } from "../../metrics/milestones.ts";
import { findCap } from "./termination.ts";

export interface PrematureTerminationOptions {
  milestones?: MilestoneScore | null;
  contracts?: AgentContract[];
  /** Evaluates completion conditions (same evaluator as milestones). */
  evaluate?: MilestoneEvaluator;
  /** Outcome of the run (tag or API); true: nothing to find. */
  outcomeSuccess?: boolean | null;
}

export function detectPrematureTermination(t: TraceTrajectories, options: PrematureTerminationOptions = {}): DetectorFinding[] {
  if (options.outcomeSuccess === true || t.steps.length === 0 || findCap(t) !== null) return [];
  const root = t.rootSpanId === null ? undefined : t.spanById.get(t.rootSpanId);
  const lastStep = t.steps[t.steps.length - 1];
  if (lastStep === undefined || lastStep.isError || root?.isError === true) return []; // a crash is not a decision
  const findings: DetectorFinding[] = [];
  // A milestone left not evaluated (budget) is unknown, not unmet.
  const unmet = (options.milestones?.detail ?? []).filter((d) => d.required && !d.passed && d.evaluated);
  if (unmet.length > 0) {
    const reached = options.milestones?.detail.filter((d) => d.passed).map((d) => d.id) ?? [];
    findings.push(
      finding({
        mode: "FM-3.1",
        agent: lastStep.agent,
        spanId: lastStep.spanId,
        stepIndex: lastStep.index,
        source: "heuristic",
        confidence: 0.7,
        evidence: `run stopped on its own with required milestones unmet: ${unmet.map((d) => d.id).join(", ")}${reached.length > 0 ? ` (reached ${reached.join(", ")})` : ""}`,
      }),
    );
  }
  if (options.evaluate !== undefined) {
    for (const agent of t.agents) {
      const contract = contractFor(options.contracts ?? [], agent.name);
      if (contract?.completionCondition === undefined) continue;
      const last = agent.steps[agent.steps.length - 1];
      if (last === undefined || last.isError) continue;
      const r = options.evaluate(contract.completionCondition, t);
      const passed = typeof r === "boolean" ? r : r.passed;
      if (passed || notEvaluatedReasonOf(r) !== null) continue;
      findings.push(
        finding({
          mode: "FM-3.1",
          agent: agent.name,
          spanId: last.spanId,
          stepIndex: last.index,
          source: "contract",
          confidence: 0.8,
          evidence: `${agent.name} stopped with its completion condition unmet`,
        }),
      );
    }
  }
  return findings;
}
