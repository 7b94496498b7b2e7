/**
 * Human labels and the judges' current verdicts in the shape the rates read
 * (re-exported from schema.ts). trace_verdicts keeps every verdict ever paid
 * for; judge_current_verdicts and judge_findings hold, per (trace, judge), the
 * newest one only, written in the same transaction as the verdict
 * (judge-findings.ts), so rate queries join small tables instead of unpacking
 * jsonb. judge_leases keeps two workers from paying for one verdict.
 */
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from "drizzle-orm/pg-core";
import { rollupDeltaTable } from "./rollup-delta-table.ts";

/**
 * Who is running a judge producer on a trace right now (judge-leases.ts): taken with one
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
 * Hourly rollup of judge_findings (rollups.ts judgeFindingRollup): per (hour, service, agent scope,
 * kind, k1, k2) findings, traces, and `extra`: traces no code finding of the key has, so a rate over
 * "code or judge" is the code count plus extra. agent null = all agents.
 */
const scoreJudgeFindingHourlyColumns = () => ({
  projectId: text().notNull(),
  hourNs: bigint({ mode: "bigint" }).notNull(),
  serviceName: text(),
  agent: text(),
  kind: text().notNull(),
  k1: text().notNull(),
  k2: text().notNull(),
  findings: bigint({ mode: "number" }).notNull(),
  traces: bigint({ mode: "number" }).notNull(),
  extra: bigint({ mode: "number" }).notNull(),
  failedTraces: bigint({ mode: "number" }).notNull(),
  extraFailed: bigint({ mode: "number" }).notNull(),
});
export const scoreJudgeFindingHourly = pgTable("score_judge_finding_hourly", scoreJudgeFindingHourlyColumns(), (t) => [
  unique("score_judge_finding_hourly_cell_uq").on(t.projectId, t.hourNs, t.serviceName, t.agent, t.kind, t.k1, t.k2).nullsNotDistinct(),
]);
export const scoreJudgeFindingHourlyDelta = rollupDeltaTable("score_judge_finding_hourly_delta", scoreJudgeFindingHourlyColumns);
