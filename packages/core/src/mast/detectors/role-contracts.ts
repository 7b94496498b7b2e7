/** FM-1.2 disobey role specification: steps outside the agent's contract. */
import type { TraceTrajectories } from "../../trajectory/types.ts";
import { contractFor, toolMatches, type AgentContract } from "../contracts.ts";
import { finding, type DetectorFinding } from "../finding.ts";

export interface RoleContractScore {
  findings: DetectorFinding[];
  /** Steps of agents that have a contract. */
  checkedSteps: number;
  violatingSteps: number;
  /** violating / checked; null when no step is covered by a contract. */
  rate: number | null;
}

export function checkRoleContracts(t: TraceTrajectories, contracts: AgentContract[]): RoleContractScore {
  const findings: DetectorFinding[] = [];
  let checkedSteps = 0;
  for (const step of t.steps) {
    const contract = contractFor(contracts, step.agent);
    if (contract === undefined) continue;
    checkedSteps++;
    if (step.toolName === null) continue;
    const tool = step.toolName;
    let why: string | null = null;
    if (contract.forbiddenTools?.some((p) => toolMatches(p, tool))) {
      why = `forbidden for role "${contract.role}"`;
    } else if (step.kind === "tool" && contract.allowedTools !== undefined && !contract.allowedTools.some((p) => toolMatches(p, tool))) {
      // Handoff tools (transfer_to_*) are routing, not role actions: only forbiddenTools applies to them.
      why = `not among the tools allowed for role "${contract.role}"`;
    }
    if (why === null) continue;
    findings.push(
      finding({
        mode: "FM-1.2",
        agent: step.agent,
        spanId: step.spanId,
        stepIndex: step.index,
        source: "contract",
        confidence: 1,
        evidence: `${step.agent ?? "agent"} called tool "${tool}", ${why}`,
      }),
    );
  }
  return { findings, checkedSteps, violatingSteps: findings.length, rate: checkedSteps === 0 ? null : findings.length / checkedSteps };
}
