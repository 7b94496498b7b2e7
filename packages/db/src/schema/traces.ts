/**
 * Spans, the per-trace summary and the human labels of a trace (traces/).
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./keys.ts";

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
    // spanSearchText in traces/reads.ts, which the planner matches to use it.
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

/** A person's labels of one trace (PUT /traces/:id/labels replaces the row; the replaced one goes to trace_label_history). */
export const traceLabels = pgTable(
  "trace_labels",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    /** { "FM-1.3": true, "FM-2.4": false }: only the modes the person labelled. */
    modes: jsonb().notNull(),
    decisiveAgent: text(),
    decisiveSpanId: text(),
    decisiveStepIndex: integer(),
    note: text(),
    labeller: text().notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId] })],
);

/** Every earlier version of a trace's labels: a PUT moves the row it replaces here, so no label is lost. */
export const traceLabelHistory = pgTable(
  "trace_label_history",
  {
    projectId: text().notNull(),
    traceId: text().notNull(),
    modes: jsonb().notNull(),
    decisiveAgent: text(),
    decisiveSpanId: text(),
    decisiveStepIndex: integer(),
    note: text(),
    labeller: text().notNull(),
    /** When that version was stored (its updated_at); with the trace it identifies the version. */
    updatedAt: timestamp({ withTimezone: true }).notNull(),
    /** When a newer PUT replaced it. */
    replacedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId, t.updatedAt] })],
);
