/**
 * Drizzle schema. TS names are camelCase; the client and drizzle.config.ts both
 * use `casing: "snake_case"`, so SQL tables and columns are snake_case.
 * After editing this file, regenerate the SQL in migrations/ (see README.md).
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { rollupDeltaTable } from "./rollup-delta-table.ts";

export const projects = pgTable("projects", {
  id: text().primaryKey(),
  name: text().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text().primaryKey(),
    projectId: text()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** sha256 hex of the full key; the key itself is never stored. */
    keyHash: text().notNull(),
    /** First 8 characters of the key, to tell keys apart in a UI. */
    keyPrefix: text().notNull(),
    /** What the key may do (apiKeyScopes): ingest (send traces), read (the API's reads) or full; keys made before scopes existed are full. */
    scope: text().notNull().default("full"),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Last successful authentication, written at most once a minute per key and process. */
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex().on(t.keyHash), index().on(t.projectId), check("api_keys_scope", sql`${t.scope} IN ('ingest', 'read', 'full')`)],
);

/**
 * One row per span. No foreign key to projects: this is the high-volume table
 * and the project id always comes from an authenticated API key; the traces row
 * written in the same transaction carries the foreign key instead.
 */
export const spans = pgTable(
  "spans",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    spanId: text().notNull(),
    parentSpanId: text(),
    traceState: text().notNull(),
    // OTLP flags are a fixed32: does not fit a signed int4.
    flags: bigint({ mode: "number" }).notNull(),
    name: text().notNull(),
    kind: smallint().notNull(),
    startNs: bigint({ mode: "bigint" }).notNull(),
    endNs: bigint({ mode: "bigint" }).notNull(),
    statusCode: smallint().notNull(),
    statusMessage: text().notNull(),
    serviceName: text(),
    operation: text().notNull(),
    convention: text().notNull(),
    agentName: text(),
    agentId: text(),
    model: text(),
    provider: text(),
    inputTokens: integer(),
    outputTokens: integer(),
    cachedTokens: integer(),
    cost: doublePrecision(),
    toolName: text(),
    toolCallId: text(),
    handoffFrom: text(),
    handoffTo: text(),
    errorType: text(),
    isError: boolean().notNull(),
    conversationId: text(),
    tags: jsonb().notNull(),
    attributes: jsonb().notNull(),
    events: jsonb().notNull(),
    links: jsonb().notNull(),
    resource: jsonb().notNull(),
    scope: jsonb().notNull(),
    limitsApplied: jsonb().notNull(),
    droppedAttributesCount: integer().notNull(),
    droppedEventsCount: integer().notNull(),
    droppedLinksCount: integer().notNull(),
    receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId, t.spanId] }),
    // Ids are validated upstream; these catch a bug before it corrupts the tree.
    check("spans_trace_id_len", sql`octet_length(${t.traceId}) = 32`),
    check("spans_span_id_len", sql`octet_length(${t.spanId}) = 16`),
    check("spans_parent_span_id_len", sql`${t.parentSpanId} IS NULL OR octet_length(${t.parentSpanId}) = 16`),
    // Free text of the runs list (GET /traces?q=): words of the span name and attributes. The text
    // is cut to its first 32,768 characters so no span can exceed tsvector's 1 MB (which would fail
    // its insert); JSON escapes (\n, \u00e9) become spaces so "\nHello" indexes "hello". Must equal
    // spanSearchText in traces.ts, which the planner matches to use it.
    index("spans_search_idx").using(
      "gin",
      sql`to_tsvector('simple'::regconfig, regexp_replace(left(${t.name} || ' ' || ${t.attributes}::text, 32768), '\\\\(u[0-9a-fA-F]{4}|.)', ' ', 'g'))`,
    ),
  ],
);

/**
 * Per-trace summary maintained by insertSpanBatch. The raw_* sums add every
 * stored span and are NOT deduplicated (an agent span and its LLM child may both
 * report tokens); deduplicated per-agent totals are computed over the span tree.
 */
export const traces = pgTable(
  "traces",
  {
    projectId: text()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    traceId: text().notNull(),
    serviceName: text(),
    rootSpanId: text(),
    rootName: text(),
    // Start of the chosen root, so the earliest root wins whatever the arrival order.
    rootStartNs: bigint({ mode: "bigint" }),
    startNs: bigint({ mode: "bigint" }).notNull(),
    endNs: bigint({ mode: "bigint" }).notNull(),
    spanCount: integer().notNull(),
    errorCount: integer().notNull(),
    llmCalls: integer().notNull(),
    toolCalls: integer().notNull(),
    rawInputTokens: bigint({ mode: "number" }).notNull(),
    rawOutputTokens: bigint({ mode: "number" }).notNull(),
    agents: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    hasError: boolean().notNull(),
    firstReceivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    // Millisecond precision so a JS Date round-trips exactly (markTraceSettled compares it).
    lastReceivedAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    dirty: boolean().notNull().default(true),
    dirtySince: timestamp({ withTimezone: true }),
    settledAt: timestamp({ withTimezone: true }),
    settleVersion: integer().notNull().default(0),
    /** spanSetHash (packages/core) of the span set the last settle froze; null until the first settle. */
    spanSetHash: text(),
    /**
     * Set when the trace needs scoring (a settle froze a new span set, or the outcome changed),
     * cleared by the score stage by compare-and-set; the sweeper enqueues traces left with one.
     * Millisecond precision so a JS Date round-trips exactly.
     */
    scoreRequestedAt: timestamp({ withTimezone: true, precision: 3 }),
    /**
     * Set when the score stage hands the trace to the judges (or POST /traces/:id/judge asks),
     * before the trace.judge job is enqueued; cleared by the judge stage by compare-and-set once
     * it is done, moved ahead by a deferral (budget, rate, lease). The sweeper enqueues traces
     * whose request is past and quiet: a judge job lost with the queue is run again.
     */
    judgeRequestedAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId] }),
    index("traces_project_start_idx").on(t.projectId, t.startNs.desc(), t.traceId.desc()),
    index("traces_project_service_start_idx").on(t.projectId, t.serviceName, t.startNs.desc(), t.traceId.desc()),
    index("traces_project_error_start_idx")
      .on(t.projectId, t.startNs.desc(), t.traceId.desc())
      .where(sql`${t.hasError}`),
    index("traces_agents_gin_idx").using("gin", t.agents),
    index("traces_dirty_idx")
      .on(t.lastReceivedAt)
      .where(sql`${t.dirty}`),
    index("traces_score_requested_idx")
      .on(t.scoreRequestedAt)
      .where(sql`${t.scoreRequestedAt} IS NOT NULL`),
    index("traces_judge_requested_idx")
      .on(t.judgeRequestedAt)
      .where(sql`${t.judgeRequestedAt} IS NOT NULL`),
  ],
);

export type SpanRow = typeof spans.$inferSelect;
export type SpanInsertRow = typeof spans.$inferInsert;
export type TraceRow = typeof traces.$inferSelect;

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

/**
 * Results that cost money to compute (judge verdicts; later replay results), one row per
 * (producer id, producer version, input hash): a producer runs only when its row is missing,
 * and a new input hash adds a row, keeping the old ones. persistTraceScores never touches it.
 */
export const traceVerdicts = pgTable(
  "trace_verdicts",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    producerId: text().notNull(),
    producerVersion: integer().notNull(),
    /** The model that produced the verdict ('' for a producer that calls none): a new model judges again. */
    model: text().notNull().default(""),
    /** judgeInputHash (packages/core) of the inputs the producer declared. */
    inputHash: text().notNull(),
    /** "succeeded" | "failed" (a verdict the producer could not reach, kept so it is not paid for again). */
    status: text().notNull(),
    result: jsonb().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Runs that stored this key: a failed verdict retried replaces its row and counts one more. */
    attempts: integer().notNull().default(1),
    /**
     * A failed verdict is run again from this time (its backoff, or at once when POST
     * /traces/:id/judge asks); null: a succeeded verdict, or a failed one past its last automatic retry.
     */
    retryAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "trace_verdicts_pk", columns: [t.projectId, t.traceId, t.producerId, t.producerVersion, t.model, t.inputHash] }),
    check("trace_verdicts_status", sql`${t.status} IN ('succeeded', 'failed')`),
  ],
);

/** Outcome and run tags set through the API; they win over span tags when the trace is scored. */
export const outcomeOverrides = pgTable(
  "outcome_overrides",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    /** RunTagsOverride: only the keys that were set. */
    override: jsonb().notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId] })],
);

// ---------------------------------------------------------------------------
// Scoring configuration (CRUD through the API). service_name null = project-wide.
// ---------------------------------------------------------------------------

export const prices = pgTable(
  "prices",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    /** Model id or prefix, lowercase. */
    model: text().notNull(),
    inputPerMTok: doublePrecision().notNull(),
    outputPerMTok: doublePrecision().notNull(),
    cachedInputPerMTok: doublePrecision(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("prices_project_model_uq").on(t.projectId, t.model)],
);

export const agentContracts = pgTable(
  "agent_contracts",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    serviceName: text(),
    agent: text().notNull(),
    role: text().notNull(),
    allowedTools: text().array(),
    forbiddenTools: text().array(),
    isVerifier: boolean().notNull().default(false),
    completionCondition: jsonb(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("agent_contracts_scope_uq").on(t.projectId, t.serviceName, t.agent).nullsNotDistinct()],
);

export const handoffContracts = pgTable(
  "handoff_contracts",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    serviceName: text(),
    fromAgent: text().notNull(),
    toAgent: text().notNull(),
    jsonSchema: jsonb(),
    requiredConstraints: text().array(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("handoff_contracts_scope_uq").on(t.projectId, t.serviceName, t.fromAgent, t.toAgent).nullsNotDistinct()],
);

/** One milestone set per (project, service); milestones = [{ id, weight, check (JSONata), requires?, required? }]. */
export const milestoneSets = pgTable(
  "milestone_sets",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    serviceName: text(),
    name: text().notNull(),
    milestones: jsonb().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("milestone_sets_scope_uq").on(t.projectId, t.serviceName).nullsNotDistinct()],
);

/** Configured single-agent baseline figures, for a task id or a whole service. */
export const baselines = pgTable(
  "baselines",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    taskId: text(),
    serviceName: text(),
    tokens: doublePrecision(),
    costUsd: doublePrecision(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("baselines_scope_uq").on(t.projectId, t.taskId, t.serviceName).nullsNotDistinct(),
    check("baselines_scope_present", sql`${t.taskId} IS NOT NULL OR ${t.serviceName} IS NOT NULL`),
  ],
);

export const projectSettings = pgTable("project_settings", {
  projectId: text().primaryKey(),
  /** { redundancy, ignoredHandoffs, roleViolations } or null for equal weights. */
  coordinationWeights: jsonb(),
  repetitionK: integer(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

// ---------------------------------------------------------------------------
// Hourly score rollups (rollups.ts): one row per cell of base rows sharing the
// hour of the trace start, the service and the table's group keys. Every trace
// lives in exactly one hour and service, so per-trace counts add up across
// cells. Scored traces are folded in by the compaction (src/scores/pending-rollups.ts)
// and re-scores take their old cells out by deltas; sums are numeric so
// subtracting a trace's old contribution is exact. Keys are nullable where the
// base column is, hence unique constraints with NULLS NOT DISTINCT, not primary keys.
// ---------------------------------------------------------------------------

const rollupSum = () => numeric().notNull();
const rollupCount = () => bigint({ mode: "number" }).notNull();

/**
 * Multiplier inputs of the runs in a cell: baseline-independent sums only, so
 * the multiplier is computed when read against the task's current baseline
 * (a baseline run scored after the runs it measures counts at once).
 * Defaults let migration 0006 add them to existing rows before its backfill.
 */
const rollupSumFrom0 = () => numeric().notNull().default("0");
const rollupCountFrom0 = () => bigint({ mode: "number" }).notNull().default(0);

/** Per (hour, service, agent): trace_agent_usage sums; scored/failed traces the agent took part in. */
const scoreAgentHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  agent: text().notNull(),
  usageRows: rollupCount(),
  inputTokens: rollupSum(),
  outputTokens: rollupSum(),
  cachedTokens: rollupSum(),
  costUsd: rollupSum(),
  costRows: rollupCount(),
  llmCalls: rollupSum(),
  toolCalls: rollupSum(),
  spans: rollupSum(),
  errors: rollupSum(),
  scoredTraces: rollupCount(),
  failedTraces: rollupCount(),
});
export const scoreAgentHourly = pgTable("score_agent_hourly", scoreAgentHourlyColumns(), (t) => [
  unique("score_agent_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.agent).nullsNotDistinct(),
]);
export const scoreAgentHourlyDelta = rollupDeltaTable("score_agent_hourly_delta", scoreAgentHourlyColumns);

/** Per (hour, service): trace counts, outcomes and milestone aggregates of trace_scores. */
const scoreTraceHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  traces: rollupCount(),
  failed: rollupCount(),
  agentTraces: rollupCount(),
  outcomeRuns: rollupCount(),
  outcomeOk: rollupCount(),
  outcomeUnknown: rollupCount(),
  runs: rollupCount(),
  baselineRuns: rollupCount(),
  /** Runs without a task id (their baseline can only be their service's configured figure). */
  notaskRuns: rollupCountFrom0(),
  notaskTokenSum: rollupSumFrom0(),
  notaskCostSum: rollupSumFrom0(),
  notaskCostN: rollupCountFrom0(),
  milestoneTraces: rollupCount(),
  creditSum: rollupSum(),
  creditN: rollupCount(),
  fullSum: rollupCount(),
  fullN: rollupCount(),
  furthestSum: rollupSum(),
  furthestN: rollupCount(),
});
export const scoreTraceHourly = pgTable("score_trace_hourly", scoreTraceHourlyColumns(), (t) => [
  unique("score_trace_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName).nullsNotDistinct(),
]);
export const scoreTraceHourlyDelta = rollupDeltaTable("score_trace_hourly_delta", scoreTraceHourlyColumns);

/** Per (hour, service, task): multiplier and success inputs. task_key = task id, or 'trace:' || trace id without one. */
const scoreTaskHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  taskKey: text().notNull(),
  hasTask: boolean().notNull(),
  traceRows: rollupCount(),
  runs: rollupCount(),
  baselineRuns: rollupCount(),
  /** Sums over the non-baseline runs: total tokens; cost and how many runs have one. */
  tokenSum: rollupSumFrom0(),
  costSum: rollupSumFrom0(),
  costN: rollupCountFrom0(),
  outcomeN: rollupCount(),
  outcomeOk: rollupCount(),
});
export const scoreTaskHourly = pgTable("score_task_hourly", scoreTaskHourlyColumns(), (t) => [
  unique("score_task_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.taskKey, t.hasTask).nullsNotDistinct(),
  // A page of tasks reads its own cells only.
  index("score_task_hourly_task_idx").on(t.projectId, t.taskKey, t.hourNs),
]);
export const scoreTaskHourlyDelta = rollupDeltaTable("score_task_hourly_delta", scoreTaskHourlyColumns);

/** Per (hour, service, milestone id): traces that evaluated the milestone and how many passed. */
const scoreMilestoneHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  milestoneId: text(),
  traces: rollupCount(),
  passed: rollupCount(),
});
export const scoreMilestoneHourly = pgTable("score_milestone_hourly", scoreMilestoneHourlyColumns(), (t) => [
  unique("score_milestone_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.milestoneId).nullsNotDistinct(),
]);
export const scoreMilestoneHourlyDelta = rollupDeltaTable("score_milestone_hourly_delta", scoreMilestoneHourlyColumns);

/**
 * Per (hour, service, agent scope, kind, k1, k2) finding facts. agent null = all
 * agents. kind 'mode' (k1 = mode), 'category' (k1 = category), 'source'
 * (k1 = mode, k2 = source); traces = traces with at least one such finding.
 */
const scoreFindingHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  agent: text(),
  kind: text().notNull(),
  k1: text().notNull(),
  k2: text().notNull(),
  findings: rollupCount(),
  traces: rollupCount(),
  failedTraces: rollupCount(),
});
export const scoreFindingHourly = pgTable("score_finding_hourly", scoreFindingHourlyColumns(), (t) => [
  unique("score_finding_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.agent, t.kind, t.k1, t.k2).nullsNotDistinct(),
]);
export const scoreFindingHourlyDelta = rollupDeltaTable("score_finding_hourly_delta", scoreFindingHourlyColumns);

/**
 * Traces whose current score rows are in no rollup yet (rollups.ts "pending traces"): a score write
 * lists its traces here instead of computing their cells, the scheduled compaction folds them in
 * batches, and readers compute the cells of the ones still listed from their base rows.
 */
export const scoreRollupPending = pgTable("score_rollup_pending", { projectId: text().notNull(), traceId: text().notNull() }, (t) => [
  primaryKey({ columns: [t.projectId, t.traceId] }),
]);

export type TraceScoreRow = typeof traceScores.$inferSelect;
export type PriceRow = typeof prices.$inferSelect;
export type AgentContractRow = typeof agentContracts.$inferSelect;
export type HandoffContractRow = typeof handoffContracts.$inferSelect;
export type MilestoneSetRow = typeof milestoneSets.$inferSelect;
export type BaselineRow = typeof baselines.$inferSelect;

export { alertRules, alertEvents, webhooks, webhookDeliveries, webhookDeliveryAttempts } from "./alerts.ts";
export {
  datasets,
  datasetVersions,
  datasetItems,
  experiments,
  experimentVariants,
  runners,
  experimentDispatches,
  experimentSettings,
} from "./experiments.ts";
export {
  traceLabels,
  traceLabelHistory,
  judgeCurrentVerdicts,
  judgeFindings,
  scoreJudgeFindingHourly,
  scoreJudgeFindingHourlyDelta,
  judgeLeases,
} from "./judges.ts";
export { judgeSettings, judgeCalls, type JudgeSettingsRow, type JudgeCallRow } from "./judge-settings.ts";
