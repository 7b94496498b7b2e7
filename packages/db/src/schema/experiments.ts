/**
 * Datasets, experiments, their variants, runners, dispatched runs and the
 * project's experiment settings (docs/experiments.md). Runs themselves are scored
 * traces (trace_scores rows tagged crux.experiment.id): these tables only
 * say what was planned and dispatched. project_id scopes every read.
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from "drizzle-orm/pg-core";

export const datasets = pgTable(
  "datasets",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    name: text().notNull(),
    description: text().notNull(),
    /** The newest version; every version's items are kept. */
    currentVersion: integer().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("datasets_project_name_uq").on(t.projectId, t.name), index("datasets_project_idx").on(t.projectId, t.id)],
);

/** One row per version: a change to the items makes a new version with the whole item set. */
export const datasetVersions = pgTable(
  "dataset_versions",
  {
    datasetId: text()
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    version: integer().notNull(),
    items: integer().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.version] })],
);

export const datasetItems = pgTable(
  "dataset_items",
  {
    datasetId: text().notNull(),
    version: integer().notNull(),
    taskId: text().notNull(),
    /** What the runner gives the system (any JSON). */
    input: jsonb().notNull(),
    /** Gold outcome or rubric (any JSON), or null. */
    expected: jsonb(),
    milestoneSetId: text(),
    humanMinutes: doublePrecision(),
    family: text(),
    tags: text().array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.version, t.taskId] }), check("dataset_items_minutes", sql`${t.humanMinutes} IS NULL OR ${t.humanMinutes} > 0`)],
);

/**
 * An experiment declared through the API. Experiments seen only in run tags
 * (crux.experiment.id) have no row: they are read from trace_scores.
 */
export const experiments = pgTable(
  "experiments",
  {
    projectId: text().notNull(),
    /** The crux.experiment.id its runs carry. */
    id: text().notNull(),
    name: text().notNull(),
    description: text().notNull(),
    datasetId: text(),
    datasetVersion: integer(),
    trials: integer().notNull(),
    /** 'success' | 'partial_credit': what V of a run is. */
    valueKind: text().notNull(),
    runnerId: text(),
    /** 'draft' | 'running' | 'stopped' | 'done' */
    status: text().notNull(),
    runTimeoutMs: bigint({ mode: "number" }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.id] }),
    check("experiments_value_kind", sql`${t.valueKind} IN ('success', 'partial_credit')`),
    check("experiments_status", sql`${t.status} IN ('draft', 'running', 'stopped', 'done')`),
    check("experiments_trials", sql`${t.trials} >= 1`),
  ],
);

export const experimentVariants = pgTable(
  "experiment_variants",
  {
    projectId: text().notNull(),
    experimentId: text().notNull(),
    /** The crux.variant its runs carry. */
    name: text().notNull(),
    description: text().notNull(),
    isBaseline: boolean().notNull(),
    /** Sorted agent names active in this variant (an ablation's coalition); null: the whole system. */
    activeAgents: jsonb(),
    ord: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.experimentId, t.name] })],
);

/** A project's endpoint that runs its system for a task and exports the trace with the run's tags. */
export const runners = pgTable(
  "runners",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    name: text().notNull(),
    url: text().notNull(),
    allowPrivateTargets: boolean().notNull(),
    /** whsec_ signing secret, sealed like a webhook's (alerts/webhook-secret.ts). */
    secret: text().notNull(),
    secretPrefix: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("runners_project_idx").on(t.projectId, t.id)],
);

/** One planned run (task × variant × trial) of a started experiment, as dispatched to its runner. */
export const experimentDispatches = pgTable(
  "experiment_dispatches",
  {
    id: text().primaryKey(),
    projectId: text().notNull(),
    /** 'experiment' | 'replay': a replay's runs reuse these rows with experimentId = the replay id and variant = the correction set. */
    kind: text().notNull().default("experiment"),
    experimentId: text().notNull(),
    variant: text().notNull(),
    taskId: text().notNull(),
    trial: integer().notNull(),
    /** 'pending' | 'sent' | 'failed' | 'stopped': the delivery; arrival and scoring are read from trace_scores. */
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }),
    sentAt: timestamp({ withTimezone: true }),
    /** sentAt + the experiment's run timeout: a run not scored by then is timed out. */
    deadlineAt: timestamp({ withTimezone: true }),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Per kind: a replay's re-runs never collide with the runs of an experiment declared with its id.
    unique("experiment_dispatches_run_uq").on(t.projectId, t.kind, t.experimentId, t.variant, t.taskId, t.trial),
    index("experiment_dispatches_pending_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    check("experiment_dispatches_status", sql`${t.status} IN ('pending', 'sent', 'failed', 'stopped')`),
    check("experiment_dispatches_kind", sql`${t.kind} IN ('experiment', 'replay')`),
  ],
);

/** Per project: whether experiment runs count in production metrics, the ship bar, the dispatch limits. */
export const experimentSettings = pgTable("experiment_settings", {
  projectId: text().primaryKey(),
  /** Runs tagged crux.experiment.id or crux.replay.id count in metrics, alerts and judge sampling. */
  includeInMetrics: boolean().notNull().default(false),
  /** ShipBar (packages/core experiments/directive.ts) or null. */
  shipBar: jsonb(),
  maxRunsPerStart: integer().notNull().default(1000),
  concurrency: integer().notNull().default(4),
  runTimeoutMs: bigint({ mode: "number" }).notNull().default(1_800_000),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * Counterfactual replays of a trace (docs/experiments.md §9): what was asked
 * (corrections, trials, runner) and the task the re-runs were given. The
 * re-runs are experiment_dispatches rows of kind 'replay' (experiment_id =
 * the replay id, variant = the correction set); their outcomes are read from
 * trace_scores (replay_id, variant, trial).
 */
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
