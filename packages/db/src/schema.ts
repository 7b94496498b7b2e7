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
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

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
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex().on(t.keyHash), index().on(t.projectId)],
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
    agents: text().array().notNull().default(sql`'{}'::text[]`),
    hasError: boolean().notNull(),
    firstReceivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    // Millisecond precision so a JS Date round-trips exactly (markTraceSettled compares it).
    lastReceivedAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    dirty: boolean().notNull().default(true),
    dirtySince: timestamp({ withTimezone: true }),
    settledAt: timestamp({ withTimezone: true }),
    settleVersion: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId] }),
    index("traces_project_start_idx").on(t.projectId, t.startNs.desc(), t.traceId.desc()),
    index("traces_project_service_start_idx").on(t.projectId, t.serviceName, t.startNs.desc(), t.traceId.desc()),
    index("traces_project_error_start_idx")
      .on(t.projectId, t.startNs.desc(), t.traceId.desc())
      .where(sql`${t.hasError}`),
    index("traces_agents_gin_idx").using("gin", t.agents),
    index("traces_dirty_idx").on(t.lastReceivedAt).where(sql`${t.dirty}`),
  ],
);

export type SpanRow = typeof spans.$inferSelect;
export type SpanInsertRow = typeof spans.$inferInsert;
export type TraceRow = typeof traces.$inferSelect;
