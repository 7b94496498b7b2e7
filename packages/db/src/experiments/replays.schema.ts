/**
 * Counterfactual replays of a trace (docs/experiments.md §9): what was asked
 * (corrections, trials, runner) and the task the re-runs were given. The
 * re-runs are experiment_dispatches rows of kind 'replay' (experiment_id =
 * the replay id, variant = the correction set); their outcomes are read from
 * trace_scores (replay_id, variant, trial).
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const replays = pgTable(
  "replays",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    /** The original trace the replay corrects. */
    traceId: text().notNull(),
    runnerId: text().notNull(),
    trials: integer().notNull(),
    /** [{ agent, spanId, output }]: agent corrections have spanId null; a step correction names its span's agent when known. */
    corrections: jsonb().notNull(),
    /** The correction sets run (ReplaySet, packages/core experiments/replay.ts): each correction alone, and all together. */
    sets: jsonb().notNull(),
    /** { source: 'dataset' | 'root_span', taskId, input, expected }: what the runner re-runs. */
    task: jsonb().notNull(),
    runTimeoutMs: bigint({ mode: "number" }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("replays_project_trace_idx").on(t.projectId, t.traceId, t.createdAt), check("replays_trials", sql`${t.trials} >= 1`)],
);
