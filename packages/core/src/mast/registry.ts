/**
 * The MAST detectors (docs/failure-modes.md §3) and signal detectors (§4), as one list.
 * detectMast runs them in this order; the failure-mode rates read the list to know
 * which modes something measures (mode-coverage.ts). Adding a detector: its file,
 * its test, one entry here.
 */
import type { TraceTrajectories } from "../trajectory/types.ts";
import { configuredNeeds, type ConfigNeed } from "./config-needs.ts";
import type { AgentContract, HandoffContract, SchemaValidator } from "./contracts.ts";
import type { DetectorFinding, MastModeId, Signal, SignalKind } from "./finding.ts";
import { detectErrorPropagation } from "./detectors/error-propagation.ts";
import { checkHandoffContracts, type HandoffContractScore } from "./detectors/handoff-contracts.ts";
import { detectIgnoredInput, type IgnoredInputScore } from "./detectors/ignored-input.ts";
import type { MilestoneEvaluator, MilestoneScore } from "../metrics/milestones.ts";
import { detectInferredVerificationFailures } from "./detectors/inferred-verification.ts";
import { detectPrematureStop } from "./detectors/premature-stop.ts";
import { detectPrematureTermination } from "./detectors/premature-termination.ts";
import { detectRepetition } from "./detectors/repetition.ts";
import { checkRoleContracts, type RoleContractScore } from "./detectors/role-contracts.ts";
import { detectCascades } from "./detectors/cascade.ts";
import { detectRedundantWork } from "./detectors/redundant-work.ts";
import { detectTerminationUnawareness } from "./detectors/termination.ts";
import { detectVerificationFailures } from "./detectors/verification.ts";

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

/** Per-detector results that other scorers read (coordination rates, attribution). */
export interface DetectorScores {
  handoffContracts: HandoffContractScore;
  roleContracts: RoleContractScore;
  ignoredInput: IgnoredInputScore;
}

export interface DetectorOutput {
  /** detectMast adds the detector's id to each. */
  findings?: DetectorFinding[];
  signals?: Signal[];
  scores?: Partial<DetectorScores>;
}

export interface ModeNeeds {
  mode: MastModeId;
  /** The detector measures the mode when any one of these is configured; empty: it needs no configuration. */
  needsConfig: readonly ConfigNeed[];
  /**
   * A config-free heuristic stands down (reports and measures nothing of the mode) when any one of
   * these is configured: the detector reading that configuration measures the mode instead.
   */
  standsDownFor?: readonly ConfigNeed[];
}

export interface Detector {
  /** Cited by the failure-mode rates; the detector's file name where the file holds one detector. */
  id: string;
  /** "code": pure and synchronous, runs on every settled trace. LLM judges will be entries of their own kind. */
  kind: "code";
  /** The modes it reports, each with the configuration it cannot fire without. */
  modes: readonly ModeNeeds[];
  /** The signals it reports (docs/failure-modes.md §4). */
  signals: readonly SignalKind[];
  run(t: TraceTrajectories, options: MastOptions): DetectorOutput;
}

const agentContractsOf = (o: MastOptions): AgentContract[] => o.agentContracts ?? [];

export const mastDetectors: readonly Detector[] = [
  {
    id: "repetition",
    kind: "code",
    modes: [{ mode: "FM-1.3", needsConfig: [] }],
    signals: [],
    run: (t, o) => ({ findings: detectRepetition(t, { k: o.repetitionK ?? 3 }) }),
  },
  {
    id: "termination",
    kind: "code",
    modes: [{ mode: "FM-1.5", needsConfig: [] }],
    signals: [],
    run: (t, o) => {
      const progressSpanIds = (o.milestones?.detail ?? []).filter((d) => d.passed && d.spanId !== null).map((d) => d.spanId as string);
      return { findings: detectTerminationUnawareness(t, { livelockMinHandoffs: o.livelockMinHandoffs ?? 3, progressSpanIds }) };
    },
  },
  {
    id: "role-contracts",
    kind: "code",
    modes: [{ mode: "FM-1.2", needsConfig: ["agentContract.tools"] }],
    signals: [],
    run: (t, o) => {
      const roleContracts = checkRoleContracts(t, agentContractsOf(o));
      return { findings: roleContracts.findings, scores: { roleContracts } };
    },
  },
  {
    id: "handoff-contracts",
    kind: "code",
    modes: [
      { mode: "FM-1.1", needsConfig: ["handoffContract.jsonSchema"] },
      { mode: "FM-2.4", needsConfig: ["handoffContract.requiredConstraints"] },
    ],
    signals: [],
    run: (t, o) => {
      const handoffContracts = checkHandoffContracts(t, o.handoffContracts ?? [], {
        ...(o.validateSchema === undefined ? {} : { validate: o.validateSchema }),
        ...(o.goal === undefined ? {} : { goal: o.goal }),
      });
      return { findings: handoffContracts.findings, scores: { handoffContracts } };
    },
  },
  {
    id: "ignored-input",
    kind: "code",
    modes: [{ mode: "FM-2.5", needsConfig: [] }],
    signals: [],
    run: (t) => {
      const ignoredInput = detectIgnoredInput(t);
      return { findings: ignoredInput.findings, scores: { ignoredInput } };
    },
  },
  {
    id: "verification",
    kind: "code",
    modes: [
      { mode: "FM-3.2", needsConfig: ["agentContract.isVerifier"] },
      { mode: "FM-3.3", needsConfig: ["agentContract.isVerifier"] },
    ],
    signals: [],
    run: (t, o) => ({
      findings: detectVerificationFailures(t, {
        contracts: agentContractsOf(o),
        outcomeSuccess: o.outcomeSuccess ?? null,
        ...(o.artifactTools === undefined ? {} : { artifactTools: o.artifactTools }),
      }),
    }),
  },
  {
    id: "premature-termination",
    kind: "code",
    modes: [{ mode: "FM-3.1", needsConfig: ["milestoneSet.required", "agentContract.completionCondition"] }],
    signals: [],
    run: (t, o) => ({
      findings: detectPrematureTermination(t, {
        milestones: o.milestones ?? null,
        contracts: agentContractsOf(o),
        outcomeSuccess: o.outcomeSuccess ?? null,
        ...(o.evaluate === undefined ? {} : { evaluate: o.evaluate }),
      }),
    }),
  },
  { id: "cascade", kind: "code", modes: [], signals: ["cascade"], run: (t) => ({ signals: detectCascades(t) }) },
  { id: "redundant-work", kind: "code", modes: [], signals: ["redundant_work"], run: (t) => ({ signals: detectRedundantWork(t) }) },
  // Config-free heuristics for modes whose detectors above need configuration (docs/failure-modes.md §3).
  {
    id: "inferred-verification",
    kind: "code",
    modes: [
      { mode: "FM-3.2", needsConfig: [], standsDownFor: ["agentContract.isVerifier"] },
      { mode: "FM-3.3", needsConfig: [], standsDownFor: ["agentContract.isVerifier"] },
    ],
    signals: [],
    run: (t, o) => ({
      findings: detectInferredVerificationFailures(t, {
        outcomeSuccess: o.outcomeSuccess ?? null,
        ...(o.artifactTools === undefined ? {} : { artifactTools: o.artifactTools }),
      }),
    }),
  },
  {
    id: "premature-stop",
    kind: "code",
    modes: [{ mode: "FM-3.1", needsConfig: [], standsDownFor: ["milestoneSet.required", "agentContract.completionCondition"] }],
    signals: [],
    run: (t, o) => ({ findings: detectPrematureStop(t, { outcomeSuccess: o.outcomeSuccess ?? null }) }),
  },
  { id: "error-propagation", kind: "code", modes: [{ mode: "FM-3.2", needsConfig: [] }], signals: [], run: (t) => ({ findings: detectErrorPropagation(t) }) },
];

/** The needs the options of one scoring meet (the configuration the trace is scored with, as configuredNeeds reads it). */
export function configuredNeedsOf(options: MastOptions): Set<ConfigNeed> {
  return configuredNeeds({
    agentContracts: options.agentContracts ?? [],
    handoffContracts: options.handoffContracts ?? [],
    milestones: options.milestones?.detail ?? null,
  });
}

/** Whether a mode entry of a detector stands down under these needs. */
export const standsDown = (m: ModeNeeds, configured: ReadonlySet<ConfigNeed>): boolean => (m.standsDownFor ?? []).some((n) => configured.has(n));
