/**
 * TraceScoreRecord: everything the worker computes for one settled trace, as
 * plain data. packages/core produces it (scoreTrace, pure); packages/db
 * persists it in one transaction, replacing the trace's previous set, so the
 * API never serves a half-written set; `version` is the trace's settle
 * version at scoring time.
 */
import type { AgentCounters } from "../attribution/types.ts";
import type { Finding, Signal } from "../mast/finding.ts";

export interface AgentScoreRow extends AgentCounters {
  agent: string;
  agentId: string | null;
  parentAgent: string | null;
  /** USD; null when some of the agent's tokens are on an unpriced model and no reported cost covers them. */
  costUsd: number | null;
  /** Share of the trace's total tokens, 0..1. */
  tokenShare: number;
  wallMs: number;
  /** Milestone credit share (0..1) when milestones are configured, else null. */
  milestoneCredit: number | null;
}

export interface AttributionRow {
  /** first_failed_handoff_contract | first_unrecovered_tool_error | first_dropped_constraint | suspect (ranked, low confidence) */
  method: string;
  rank: number;
  agent: string | null;
  stepIndex: number | null;
  spanId: string | null;
  reason: string;
  confidence: number;
}

export interface MultiplierValue {
  value: number | null;
  observed: number | null;
  baseline: number | null;
  source: "baseline_run" | "configured" | "unknown";
}

export interface TraceScoreRecord {
  traceId: string;
  version: number;
  serviceName: string | null;
  startNs: bigint;
  endNs: bigint;
  run: {
    success: boolean | null;
    score: number | null;
    taskId: string | null;
    variant: string | null;
    isBaseline: boolean;
    experimentId: string | null;
    seed: string | null;
    trial: number | null;
    activeAgents: string[] | null;
    replayId: string | null;
  };
  totals: { inputTokens: number; outputTokens: number; cachedTokens: number; totalTokens: number; costUsd: number | null; unpricedModels: string[] };
  multiplier: { tokens: MultiplierValue; cost: MultiplierValue };
  coordination: { redundancy: number | null; ignoredHandoffs: number | null; roleViolations: number | null; score: number | null };
  communicationEfficiency: number | null;
  goalDrift: number | null;
  milestones: null | {
    setId: string;
    /** null when some milestone was not evaluated (budget exhausted). */
    partialCredit: number | null;
    fullSuccess: boolean | null;
    furthestIndex: number;
    /** Milestones left not evaluated because an evaluation budget ran out; 0 (or absent) normally. */
    notEvaluated?: number;
    /** evaluated false (with the reason): not evaluated, so `passed` false means unknown, not failed; absent = evaluated. */
    detail: {
      id: string;
      passed: boolean;
      evaluated?: boolean;
      notEvaluatedReason?: "trace_budget" | "project_budget" | null;
      spanId: string | null;
      agent: string | null;
    }[];
  };
  agents: AgentScoreRow[];
  findings: Finding[];
  signals: Signal[];
  /** Every span in error with the chain of agents above it ("lead > search_1"), so a failure points at the delegation that led there. */
  errorPaths: { spanId: string; stepIndex: number | null; agent: string | null; depth: number; path: string; errorType: string | null }[];
  attributions: AttributionRow[];
  handoffs: { index: number; sender: string | null; receiver: string | null; spanId: string; via: string; message: string | null; startNs: bigint }[];
  /** Per agent, the ordered steps (kept small: ids, kinds, tool names, errors, tokens). */
  trajectories: {
    agent: string;
    steps: {
      index: number;
      spanId: string;
      kind: string;
      toolName: string | null;
      isError: boolean;
      inputTokens: number;
      outputTokens: number;
      startNs: bigint;
    }[];
  }[];
  flags: { orphans: number; multipleRoots: boolean; clockSkew: number };
}
