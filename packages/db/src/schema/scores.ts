/**
 * The stored score set of a trace (scores/persist.ts writes it).
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

// ---------------------------------------------------------------------------
// Scores (written by persistTraceScores, one transaction per trace). No foreign
// keys: like spans these are high-volume and keyed by the authenticated
// project. start_ns and service_name are copied into the child tables so the
// metrics aggregations filter on their own indexes and never join spans.
// ---------------------------------------------------------------------------

/** One summary row per scored trace. */
export const traceScores = pgTable(
  "trace_scores",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    /** The trace's settle version when it was scored. */
    version: integer().notNull(),
    serviceName: text(),
    startNs: bigint({ mode: "bigint" }).notNull(),
    endNs: bigint({ mode: "bigint" }).notNull(),
    success: boolean(),
    score: doublePrecision(),
    taskId: text(),
    variant: text(),
    isBaseline: boolean().notNull(),
    experimentId: text(),
    seed: text(),
    trial: integer(),
    /** crux.agents.active: sorted agent names (a JSON array), or null. */
    activeAgents: jsonb(),
    replayId: text(),
    /** An experiment or replay run of a project that keeps them out of production metrics (docs/experiments.md §2). */
    metricsExcluded: boolean().notNull().default(false),
    inputTokens: bigint({ mode: "number" }).notNull(),
    outputTokens: bigint({ mode: "number" }).notNull(),
    cachedTokens: bigint({ mode: "number" }).notNull(),
    totalTokens: bigint({ mode: "number" }).notNull(),
    costUsd: doublePrecision(),
    unpricedModels: text().array().notNull(),
    tokenMultiplier: doublePrecision(),
    tokenObserved: doublePrecision(),
    tokenBaseline: doublePrecision(),
    tokenBaselineSource: text().notNull(),
    costMultiplier: doublePrecision(),
    costObserved: doublePrecision(),
    costBaseline: doublePrecision(),
    costBaselineSource: text().notNull(),
    redundancy: doublePrecision(),
    ignoredHandoffs: doublePrecision(),
    roleViolations: doublePrecision(),
    coordinationScore: doublePrecision(),
    communicationEfficiency: doublePrecision(),
    goalDrift: doublePrecision(),
    milestoneSetId: text(),
    milestonePartialCredit: doublePrecision(),
    milestoneFullSuccess: boolean(),
    milestoneFurthestIndex: integer(),
    /** [{ id, passed, spanId, agent }] */
    milestoneDetail: jsonb(),
    signals: jsonb().notNull(),
    errorPaths: jsonb()
      .notNull()
      .default(sql`'[]'::jsonb`),
    /** { orphans, multipleRoots, clockSkew } */
    flags: jsonb().notNull(),
    findingCount: integer().notNull(),
    /** scoreInputHash (packages/core) of the inputs this set was computed from; null = unknown, never skipped. */
    inputHash: text(),
    scoredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId] }),
    index("trace_scores_project_start_idx").on(t.projectId, t.startNs),
    index("trace_scores_project_service_start_idx").on(t.projectId, t.serviceName, t.startNs),
    index("trace_scores_project_task_idx").on(t.projectId, t.taskId, t.startNs),
    // The runs list's outcome filter (GET /traces?outcome=).
    index("trace_scores_project_success_start_idx").on(t.projectId, t.success, t.startNs),
    index("trace_scores_project_experiment_idx")
      .on(t.projectId, t.experimentId, t.variant)
      .where(sql`${t.experimentId} IS NOT NULL`),
    // A replay's re-runs, matched to its dispatches by correction set and trial.
    index("trace_scores_project_replay_idx")
      .on(t.projectId, t.replayId, t.variant, t.trial)
      .where(sql`${t.replayId} IS NOT NULL`),
    index("trace_scores_metrics_excluded_idx")
      .on(t.projectId, t.traceId)
      .where(sql`${t.metricsExcluded}`),
    // The current baseline of a task: its baseline-tagged runs, read on every multiplier read.
    index("trace_scores_project_baseline_task_idx")
      .on(t.projectId, t.taskId)
      .where(sql`${t.isBaseline}`),
  ],
);

/** MAST findings of a trace, in the record's order (ord). */
export const traceFindings = pgTable(
  "trace_findings",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    ord: integer().notNull(),
    mode: text().notNull(),
    category: text().notNull(),
    agent: text(),
    spanId: text().notNull(),
    stepIndex: integer(),
    source: text().notNull(),
    /** Id of the code detector that produced it (packages/core detectors.ts); null on a row scored before findings said so, of a mode several detectors report. */
    detector: text(),
    confidence: doublePrecision().notNull(),
    evidence: text().notNull(),
    startNs: bigint({ mode: "bigint" }).notNull(),
    serviceName: text(),
    /** The run's outcome, copied so "modes among failed traces" needs no join. */
    success: boolean(),
    // Set on the trace's first finding of its mode / category / (agent, mode), so
    // "traces with at least one finding" is a plain count, not count(DISTINCT).
    firstOfMode: boolean().notNull(),
    firstOfCategory: boolean().notNull(),
    firstOfAgentMode: boolean().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId, t.ord] }),
    index("trace_findings_project_start_idx").on(t.projectId, t.startNs),
    index("trace_findings_project_service_start_idx").on(t.projectId, t.serviceName, t.startNs),
    index("trace_findings_project_agent_start_idx").on(t.projectId, t.agent, t.startNs),
    // The runs list's mode and category filters (GET /traces?mode=, ?category=).
    index("trace_findings_project_mode_trace_idx").on(t.projectId, t.mode, t.traceId),
    index("trace_findings_project_category_trace_idx").on(t.projectId, t.category, t.traceId),
  ],
);

/** Per-agent usage of a trace (deduplicated by attribution). */
export const traceAgentUsage = pgTable(
  "trace_agent_usage",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    agent: text().notNull(),
    agentId: text(),
    parentAgent: text(),
    spans: integer().notNull(),
    llmCalls: integer().notNull(),
    toolCalls: integer().notNull(),
    errors: integer().notNull(),
    inputTokens: bigint({ mode: "number" }).notNull(),
    outputTokens: bigint({ mode: "number" }).notNull(),
    cachedTokens: bigint({ mode: "number" }).notNull(),
    /** False when the tracer reported no token counts for the agent: the counts are 0 for want of a report (served as null). Rows scored before the column existed read true. */
    tokensReported: boolean().notNull().default(true),
    costUsd: doublePrecision(),
    tokenShare: doublePrecision().notNull(),
    wallMs: doublePrecision().notNull(),
    milestoneCredit: doublePrecision(),
    startNs: bigint({ mode: "bigint" }).notNull(),
    serviceName: text(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId, t.agent] }),
    index("trace_agent_usage_project_start_idx").on(t.projectId, t.startNs),
    index("trace_agent_usage_project_agent_start_idx").on(t.projectId, t.agent, t.startNs),
    index("trace_agent_usage_project_service_start_idx").on(t.projectId, t.serviceName, t.startNs),
  ],
);

export const traceAttributions = pgTable(
  "trace_attributions",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    ord: integer().notNull(),
    method: text().notNull(),
    rank: integer().notNull(),
    agent: text(),
    stepIndex: integer(),
    spanId: text(),
    reason: text().notNull(),
    confidence: doublePrecision().notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId, t.ord] })],
);

export const traceHandoffs = pgTable(
  "trace_handoffs",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    idx: integer().notNull(),
    sender: text(),
    receiver: text(),
    spanId: text().notNull(),
    via: text().notNull(),
    message: text(),
    startNs: bigint({ mode: "bigint" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId, t.idx] })],
);

/** Ordered steps per agent, as jsonb (start_ns as a decimal string). */
export const traceTrajectories = pgTable(
  "trace_trajectories",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    agent: text().notNull(),
    steps: jsonb().notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId, t.agent] })],
);

export type TraceScoreRow = typeof traceScores.$inferSelect;
