/**
 * Judges (judges/): trace_verdicts keeps every verdict ever paid for;
 * judge_current_verdicts and judge_findings hold, per (trace, judge), the
 * newest one only, written in the same transaction as the verdict
 * (judges/findings.ts), so rate queries join small tables instead of unpacking
 * jsonb. judge_leases keeps two workers from paying for one verdict. A
 * project's judge settings (its own model and policy; the provider key
 * encrypted at rest) and one row per provider call (what it cost, how it went).
 */
import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Who is running a judge producer on a trace right now (judges/leases.ts): taken with one
 * compare-and-set before a missing verdict is paid for, deleted in the verdict's transaction or when
 * the run fails. A lease past expires_at is free (its holder crashed or stalled); another worker takes it.
 */
export const judgeLeases = pgTable(
  "judge_leases",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    /** The verdict's key (producer id, version, model, input hash), as judgeLeaseKey builds it. */
    producerKey: text().notNull(),
    /** The judge processor holding it (host, pid, instance). */
    holder: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId, t.producerKey] })],
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

/** The newest verdict of each judge (`judge.<kind>`) on a trace, with its attribution and outcome. */
export const judgeCurrentVerdicts = pgTable(
  "judge_current_verdicts",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    producerId: text().notNull(),
    producerVersion: integer().notNull(),
    inputHash: text().notNull(),
    status: text().notNull(),
    /** The trace's start and service when the verdict was stored (traces row), for window scans. */
    startNs: bigint({ mode: "bigint" }).notNull(),
    serviceName: text(),
    outcomeSuccess: boolean(),
    outcomeScore: doublePrecision(),
    attributionMethod: text(),
    attributionAgent: text(),
    attributionSpanId: text(),
    attributionStepIndex: integer(),
    attributionExplanation: text(),
    /**
     * The MAST modes the verdict asked about (JudgeVerdictResult.askedModes, declared by the judge);
     * null for a verdict that does not say (a failed one, or one stored before judges declared it):
     * read as every mode.
     */
    askedModes: text().array(),
    verdictCreatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId, t.producerId] }), index("judge_current_verdicts_project_start_idx").on(t.projectId, t.startNs)],
);

/** The findings of the verdicts in judge_current_verdicts (status succeeded), in the verdict's order. */
export const judgeFindings = pgTable(
  "judge_findings",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    producerId: text().notNull(),
    ord: integer().notNull(),
    mode: text().notNull(),
    category: text().notNull(),
    agent: text(),
    spanId: text().notNull(),
    stepIndex: integer().notNull(),
    confidence: doublePrecision().notNull(),
    evidence: text().notNull(),
    explanation: text().notNull(),
    startNs: bigint({ mode: "bigint" }).notNull(),
    serviceName: text(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId, t.producerId, t.ord] }),
    index("judge_findings_project_start_idx").on(t.projectId, t.startNs),
    // The runs list's mode and category filters with source judge (GET /traces?mode=&source=judge).
    index("judge_findings_project_mode_trace_idx").on(t.projectId, t.mode, t.traceId),
    index("judge_findings_project_category_trace_idx").on(t.projectId, t.category, t.traceId),
  ],
);

/**
 * One row per project that set anything; a null field means "the service default". No foreign key
 * to projects: the project id always comes from an authenticated API key.
 */
export const judgeSettings = pgTable(
  "judge_settings",
  {
    projectId: text().primaryKey(),
    /** false: the project switched its judges off (whatever the service default). */
    enabled: boolean().notNull().default(true),
    /** "anthropic" | "openai"; null: the service default's model, base URL and key. */
    provider: text(),
    model: text(),
    baseUrl: text(),
    /** AES-256-GCM of the provider key (`v1.<iv>.<tag>.<ciphertext>`, base64url); never the key itself. */
    apiKeyCiphertext: text(),
    /** Last 4 characters of the key, to tell keys apart. */
    apiKeyLast4: text(),
    samplingShare: doublePrecision(),
    dailyBudgetUsd: doublePrecision(),
    /** Outcome rubric of the outcome judge. */
    rubric: text(),
    /** Judge kinds to run; null: every kind. */
    kinds: text().array(),
    /** Bumped by every write: the worker's cache of built judge suites is keyed by it. */
    version: integer().notNull().default(1),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("judge_settings_provider", sql`${t.provider} IS NULL OR ${t.provider} IN ('anthropic', 'openai')`),
    check("judge_settings_sampling", sql`${t.samplingShare} IS NULL OR (${t.samplingShare} >= 0 AND ${t.samplingShare} <= 1)`),
  ],
);

/** Every provider call a judge made, success or not. No foreign key: written per call, keyed by the authenticated project. */
export const judgeCalls = pgTable(
  "judge_calls",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    projectId: text().notNull(),
    traceId: text().notNull(),
    kind: text().notNull(),
    promptVersion: integer().notNull(),
    provider: text().notNull(),
    model: text().notNull(),
    inputTokens: integer().notNull(),
    outputTokens: integer().notNull(),
    /** null: the model has no price. */
    costUsd: doublePrecision(),
    latencyMs: doublePrecision().notNull(),
    outcome: text().notNull(),
    error: text(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    index("judge_calls_project_created_idx").on(t.projectId, t.createdAt.desc(), t.id.desc()),
    index("judge_calls_project_trace_idx").on(t.projectId, t.traceId),
  ],
);

export type JudgeSettingsRow = typeof judgeSettings.$inferSelect;
export type JudgeCallRow = typeof judgeCalls.$inferSelect;
