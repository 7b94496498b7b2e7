/**
 * LLM judge tables: a project's judge settings (its own model and policy; the
 * provider key encrypted at rest) and one row per provider call (what it cost,
 * how it went). Re-exported from ../schema.ts so drizzle-kit sees them.
 */
import { sql } from "drizzle-orm";
import { bigserial, boolean, check, doublePrecision, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per project that set anything; a null field means "the service default". No foreign key
 * to projects: this file cannot import schema.ts (which re-exports it), and the project id always
 * comes from an authenticated API key.
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
