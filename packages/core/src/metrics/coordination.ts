/**
 * Coordination rates and score (docs/metrics.md §6): redundancy, ignored handoffs,
 * role violations, each in [0,1]; Coord = 1 - Σ w_k p_k.
 */
import type { TraceTrajectories } from "../trajectory/types.ts";
import type { AgentContract } from "../mast/contracts.ts";
import { detectIgnoredInput, type IgnoredInputScore } from "../mast/detectors/ignored-input.ts";
import { checkRoleContracts, type RoleContractScore } from "../mast/detectors/role-contracts.ts";
import { stepSignature } from "../text/step-signature.ts";

export interface CoordinationRates {
  redundancy: number | null;
  ignoredHandoffs: number | null;
  roleViolations: number | null;
}

export type CoordinationWeights = { [K in keyof CoordinationRates]: number };

export const defaultCoordinationWeights: CoordinationWeights = { redundancy: 1 / 3, ignoredHandoffs: 1 / 3, roleViolations: 1 / 3 };

/**
 * 1 - Σ w_k p_k. Weights are normalized to sum to 1; a rate that is unknown
 * (null: no steps, no directed handoff, no contract) is left out and the
 * other weights renormalized; null when every rate is unknown.
 */
export function coordinationScore(rates: CoordinationRates, weights: CoordinationWeights = defaultCoordinationWeights): number | null {
  let weightSum = 0;
  let weighted = 0;
  for (const k of Object.keys(rates) as Array<keyof CoordinationRates>) {
    const p = rates[k];
    const w = Math.max(weights[k], 0);
    if (p === null || w === 0) continue;
    weightSum += w;
    weighted += w * p;
  }
  return weightSum === 0 ? null : 1 - weighted / weightSum;
}

export interface RedundancyScore {
  steps: number;
  /** Steps repeating an earlier step of the same agent (same tool and arguments, or same content). */
  repeats: number;
  rate: number | null;
}

export function redundancyRate(t: TraceTrajectories): RedundancyScore {
  let steps = 0;
  let repeats = 0;
  for (const agent of t.agents) {
    const seen = new Set<string>();
    for (const step of agent.steps) {
      steps++;
      const sig = stepSignature(step);
      if (sig === null) continue;
      if (seen.has(sig)) repeats++;
      else seen.add(sig);
    }
  }
  return { steps, repeats, rate: steps === 0 ? null : repeats / steps };
}

export interface CoordinationOptions {
  contracts?: AgentContract[];
  weights?: CoordinationWeights;
}

export interface CoordinationScore {
  rates: CoordinationRates;
  coord: number | null;
  redundancy: RedundancyScore;
  ignored: IgnoredInputScore;
  roles: RoleContractScore;
}

export function scoreCoordination(t: TraceTrajectories, options: CoordinationOptions = {}): CoordinationScore {
  const redundancy = redundancyRate(t);
  const ignored = detectIgnoredInput(t);
  const roles = checkRoleContracts(t, options.contracts ?? []);
  const rates: CoordinationRates = { redundancy: redundancy.rate, ignoredHandoffs: ignored.rate, roleViolations: roles.rate };
  return { rates, coord: coordinationScore(rates, options.weights), redundancy, ignored, roles };
}
