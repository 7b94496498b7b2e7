/**
 * What a project configures for scoring (config/): prices, contracts, milestones, baselines,
 * settings, and the outcome and run tags set on a trace through the API.
 */
import { sql } from "drizzle-orm";
import { boolean, check, doublePrecision, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex } from "drizzle-orm/pg-core";

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

export type PriceRow = typeof prices.$inferSelect;
export type AgentContractRow = typeof agentContracts.$inferSelect;
export type HandoffContractRow = typeof handoffContracts.$inferSelect;
export type MilestoneSetRow = typeof milestoneSets.$inferSelect;
export type BaselineRow = typeof baselines.$inferSelect;
