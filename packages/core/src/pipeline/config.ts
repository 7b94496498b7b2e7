/**
 * What the scoring pipeline needs beyond the spans, loaded by the worker from
 * the database (packages/db loadScoringConfig) for the trace's project and
 * service. Plain data; validation of JSON Schemas and evaluation of milestone
 * expressions are injected functions so core stays dependency-free.
 */
import type { AgentContract, HandoffContract, SchemaValidator } from "../mast/contracts.ts";
import type { CoordinationWeights } from "../metrics/coordination.ts";
import type { Milestone, MilestoneEvaluator } from "../metrics/milestones.ts";
import type { RunTagsOverride } from "../metrics/outcome.ts";
import type { PriceTable } from "../metrics/price-table.ts";

/** A milestone's check is an expression (JSONata) over the normalized trace view. */
export type MilestoneExpression = string;

export interface ScoringConfig {
  /** Effective price table: project rows override the seeded defaults by model. */
  prices: PriceTable;
  agentContracts: AgentContract[];
  handoffContracts: HandoffContract[];
  milestoneSet: { id: string; milestones: Milestone<MilestoneExpression>[] } | null;
  /** Configured single-agent baseline for the trace's task or service, when no baseline run exists. */
  configuredBaseline: { tokens: number | null; costUsd: number | null } | null;
  coordinationWeights: CoordinationWeights | null;
  /** FM-1.3 threshold (default 3). */
  repetitionK: number | null;
}

export interface ScoreTraceInput {
  projectId: string;
  traceId: string;
  version: number;
  spans: import("../span.ts").NormalizedSpan[];
  config: ScoringConfig;
  /** Outcome and tags set through POST /api/v1/traces/:id/outcome; they win over span tags. */
  outcomeOverride: RunTagsOverride | null;
  /** Mean totals of baseline-variant runs of the same task, if any (found by the worker). */
  baselineRun: { tokens: number; costUsd: number | null; runs: number } | null;
  validateSchema: SchemaValidator;
  evaluateMilestone: MilestoneEvaluator<MilestoneExpression>;
}
