/**
 * Project configuration a detector cannot fire without (docs/failure-modes.md §5).
 * Each need is checked the way its detector reads the configuration, so "configured"
 * means "the detector can fire", not merely "a row exists".
 */
import type { AgentContract, HandoffContract } from "./contracts.ts";
import type { Milestone, MilestoneDetail } from "../metrics/milestones.ts";

export type ConfigNeed =
  | "agentContract.tools"
  | "agentContract.isVerifier"
  | "agentContract.completionCondition"
  | "handoffContract.jsonSchema"
  | "handoffContract.requiredConstraints"
  | "milestoneSet.required";

/** The configuration a trace is scored with (ScoringConfig's contracts and milestone set). */
export interface DetectorConfiguration {
  agentContracts: readonly AgentContract[];
  handoffContracts: readonly HandoffContract[];
  /** The set's milestones, or a milestone score's detail (only `required` is read). */
  milestones: readonly Milestone[] | readonly MilestoneDetail[] | null;
}

interface NeedDefinition {
  /** Completes "needs …; none configured". */
  label: string;
  isConfigured(config: DetectorConfiguration): boolean;
}

export const configNeeds: Readonly<Record<ConfigNeed, NeedDefinition>> = {
  // role-contracts.ts: an empty allowedTools list forbids every tool; an empty forbiddenTools list forbids none.
  "agentContract.tools": {
    label: "an agent contract with allowedTools or forbiddenTools",
    isConfigured: (c) => c.agentContracts.some((a) => a.allowedTools !== undefined || (a.forbiddenTools?.length ?? 0) > 0),
  },
  // verification.ts names verifiers by agent: a "*" contract names none.
  "agentContract.isVerifier": {
    label: "an agent contract with isVerifier for a named agent",
    isConfigured: (c) => c.agentContracts.some((a) => a.isVerifier === true && a.agent !== "*"),
  },
  "agentContract.completionCondition": {
    label: "an agent contract with a completionCondition",
    isConfigured: (c) => c.agentContracts.some((a) => a.completionCondition !== undefined),
  },
  "handoffContract.jsonSchema": {
    label: "a handoff contract with a jsonSchema",
    isConfigured: (c) => c.handoffContracts.some((h) => h.jsonSchema !== undefined),
  },
  // handoff-contracts.ts skips blank phrases.
  "handoffContract.requiredConstraints": {
    label: "a handoff contract with requiredConstraints",
    isConfigured: (c) => c.handoffContracts.some((h) => (h.requiredConstraints ?? []).some((p) => p.trim() !== "")),
  },
  // premature-termination.ts counts unmet milestones that are required (the default).
  "milestoneSet.required": {
    label: "a milestone set with a required milestone",
    isConfigured: (c) => (c.milestones ?? []).some((m) => m.required !== false),
  },
};

/** The needs this configuration meets. */
export function configuredNeeds(config: DetectorConfiguration): Set<ConfigNeed> {
  return new Set((Object.keys(configNeeds) as ConfigNeed[]).filter((need) => configNeeds[need].isConfigured(config)));
}
