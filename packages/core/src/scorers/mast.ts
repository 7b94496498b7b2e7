/** Runs every code detector of docs/failure-modes.md §3 over one trace and returns findings and signals. */
import type { TraceTrajectories } from "../trajectory/types.ts";
import type { AgentContract, HandoffContract, SchemaValidator } from "./contracts.ts";
import { sortFindings, type Finding, type Signal } from "./finding.ts";
import { checkHandoffContracts, type HandoffContractScore } from "./handoff-contracts.ts";
import { detectIgnoredInput, type IgnoredInputScore } from "./ignored-input.ts";
import type { MilestoneEvaluator, MilestoneScore } from "./milestones.ts";
import { detectPrematureTermination } from "./premature-termination.ts";
import { detectRepetition } from "./repetition.ts";
import { checkRoleContracts, type RoleContractScore } from "./role-contracts.ts";
import { detectCascades, detectRedundantWork } from "./signals.ts";
import { detectTerminationUnawareness } from "./termination.ts";
import { detectVerificationFailures } from "./verification.ts";

export interface MastOptions {
  agentContracts?: AgentContract[];
  handoffContracts?: HandoffContract[];
  validateSchema?: SchemaValidator;
  /** FM-1.3 threshold. Default 3. */
  repetitionK?: number;
  livelockMinHandoffs?: number;
  /** Milestone result of the trace (FM-3.1, livelock progress). */
  milestones?: MilestoneScore | null;
  /** Evaluator for contracts' completion conditions (FM-3.1). */
  evaluate?: MilestoneEvaluator;
  artifactTools?: string[];
  /** Run outcome (FM-3.3 needs false). */
  outcomeSuccess?: boolean | null;
  goal?: string | null;
}

export interface MastResult {
  findings: Finding[];
  signals: Signal[];
  handoffContracts: HandoffContractScore;
  roleContracts: RoleContractScore;
  ignoredInput: IgnoredInputScore;
}

export function detectMast(t: TraceTrajectories, options: MastOptions = {}): MastResult {
  const agentContracts = options.agentContracts ?? [];
  const handoffContracts = checkHandoffContracts(t, options.handoffContracts ?? [], {
    ...(options.validateSchema === undefined ? {} : { validate: options.validateSchema }),
    ...(options.goal === undefined ? {} : { goal: options.goal }),
  });
  const roleContracts = checkRoleContracts(t, agentContracts);
  const ignoredInput = detectIgnoredInput(t);
  const progressSpanIds = (options.milestones?.detail ?? []).filter((d) => d.passed && d.spanId !== null).map((d) => d.spanId as string);
  const findings = [
    ...detectRepetition(t, { k: options.repetitionK ?? 3 }),
    ...detectTerminationUnawareness(t, { livelockMinHandoffs: options.livelockMinHandoffs ?? 3, progressSpanIds }),
    ...roleContracts.findings,
    ...handoffContracts.findings,
    ...ignoredInput.findings,
    ...detectVerificationFailures(t, {
      contracts: agentContracts,
      outcomeSuccess: options.outcomeSuccess ?? null,
      ...(options.artifactTools === undefined ? {} : { artifactTools: options.artifactTools }),
    }),
    ...detectPrematureTermination(t, {
      milestones: options.milestones ?? null,
      contracts: agentContracts,
      ...(options.evaluate === undefined ? {} : { evaluate: options.evaluate }),
    }),
  ];
  return {
    findings: sortFindings(findings),
    signals: [...detectCascades(t), ...detectRedundantWork(t)],
    handoffContracts,
    roleContracts,
    ignoredInput,
  };
}
