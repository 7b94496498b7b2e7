/**
 * Dispatched runs of a started experiment: one row per task × variant ×
 * trial, planned at start (unique, so a second start plans only what is
 * missing), sent by the worker's experiment.dispatch job. Whether a sent run
 * arrived is read from trace_scores (its tags), never stored twice; a sent
 * run not scored by its deadline is timed out.
 */
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { experimentDispatches, experiments } from "../schema/experiments.ts";

export interface PlannedRun {
  variant: string;
  taskId: string;
  trial: number;
}

export interface StoredDispatch extends PlannedRun {
  id: string;
  projectId: string;
  /** "replay": a replay's re-run (experimentId is the replay id, variant its correction set). */
  kind: "experiment" | "replay";
  experimentId: string;
  status: "pending" | "sent" | "failed" | "stopped";
  attempts: number;
  nextAttemptAt: Date | null;
}

/** Inserts the runs not planned yet and marks the experiment running; returns the ids of the new dispatches. */
export async function planDispatches(database: Database, projectId: string, experimentId: string, runs: readonly PlannedRun[]): Promise<string[]> {
  return database.db.transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < runs.length; i += 500) {
      const rows = await tx
        .insert(experimentDispatches)
        .values(runs.slice(i, i + 500).map((r) => ({ id: randomUUID(), projectId, experimentId, ...r, status: "pending", nextAttemptAt: sql`now()` })))
        .onConflictDoNothing()
        .returning({ id: experimentDispatches.id });
      ids.push(...rows.map((r) => r.id));
    }
    await tx
      .update(experiments)
      .set({ status: "running", updatedAt: sql`now()` })
      .where(and(eq(experiments.projectId, projectId), eq(experiments.id, experimentId)));
    return ids;
  });
}

type DispatchKind = StoredDispatch["kind"];

/**
 * The dispatches of one experiment, or of one replay: a replay's re-runs share the table with
 * experiment_id = the replay id, so every query says which kind it means (an experiment declared
 * with a replay's id must not reach that replay's runs).
 */
const ofExperiment = (projectId: string, id: string, kind: DispatchKind = "experiment") =>
  and(eq(experimentDispatches.projectId, projectId), eq(experimentDispatches.kind, kind), eq(experimentDispatches.experimentId, id));

/** Runs already planned for the experiment (a start plans only the others). */
export async function countPlanned(database: Database, projectId: string, experimentId: string): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(experimentDispatches)
    .where(ofExperiment(projectId, experimentId));
  return row?.n ?? 0;
}

export async function getDispatch(database: Database, id: string): Promise<StoredDispatch | null> {
  const [row] = await database.db.select().from(experimentDispatches).where(eq(experimentDispatches.id, id));
  return row === undefined ? null : { ...row, kind: row.kind as StoredDispatch["kind"], status: row.status as StoredDispatch["status"] };
}

/** Scored runs matching a dispatch's tags (project, experiment, variant, task, trial; a replay's: replay id, correction set, trial). */
const scoredMatch = (d: string) =>
  `(CASE WHEN ${d}.kind = 'replay' THEN EXISTS (SELECT 1 FROM trace_scores s WHERE s.project_id = ${d}.project_id AND s.replay_id = ${d}.experiment_id
     AND s.variant = ${d}.variant AND s.trial = ${d}.trial)
   ELSE EXISTS (SELECT 1 FROM trace_scores s WHERE s.project_id = ${d}.project_id AND s.experiment_id = ${d}.experiment_id
     AND s.variant = ${d}.variant AND s.task_id = ${d}.task_id AND s.trial = ${d}.trial) END)`;

/**
 * Takes a concurrency slot for a pending dispatch: marks it sent (deadline = now + timeout) when fewer
 * than `concurrency` runs of its experiment are in flight (sent, not scored, before their deadline).
 * One advisory lock per experiment serializes the count and the claim across workers.
 */
export async function claimDispatch(database: Database, id: string, concurrency: number, timeoutMs: number): Promise<"claimed" | "busy" | "gone"> {
  return database.db.transaction(async (tx) => {
    const [d] = await tx.select().from(experimentDispatches).where(eq(experimentDispatches.id, id));
    if (d === undefined || d.status !== "pending") return "gone";
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`crux.dispatch:${d.projectId}:${d.kind}:${d.experimentId}`}, 0))`);
    const [inFlight] = rowsOf(
      await tx.execute(sql`SELECT count(*)::int AS n FROM experiment_dispatches d WHERE d.project_id = ${d.projectId} AND d.kind = ${d.kind}
        AND d.experiment_id = ${d.experimentId} AND d.status = 'sent' AND d.deadline_at > now() AND NOT ${sql.raw(scoredMatch("d"))}`),
    );
    if (Number(inFlight?.n ?? 0) >= concurrency) return "busy";
    const claimed = await tx
      .update(experimentDispatches)
      .set({
        status: "sent",
        sentAt: sql`now()`,
        deadlineAt: sql`now() + ${`${timeoutMs} milliseconds`}::interval`,
        attempts: sql`${experimentDispatches.attempts} + 1`,
      })
      .where(and(eq(experimentDispatches.id, id), eq(experimentDispatches.status, "pending")))
      .returning({ id: experimentDispatches.id });
    return claimed.length > 0 ? "claimed" : "gone";
  });
}

/** After a send: kept sent, back to pending for a retry at `nextAttemptAt`, or failed. */
export async function settleDispatch(
  database: Database,
  id: string,
  outcome: { status: "sent" | "pending" | "failed"; nextAttemptAt: Date | null; lastError: string | null },
): Promise<void> {
  await database.db
    .update(experimentDispatches)
    .set({
      status: outcome.status,
      nextAttemptAt: outcome.nextAttemptAt,
      lastError: outcome.lastError,
      ...(outcome.status === "sent" ? {} : { deadlineAt: null }),
    })
    .where(eq(experimentDispatches.id, id));
}

/** Stop: pending runs become stopped (sent ones run on). Resume: stopped runs become pending again; returns their ids. */
export async function stopDispatches(database: Database, projectId: string, experimentId: string): Promise<number> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .update(experimentDispatches)
      .set({ status: "stopped" })
      .where(and(ofExperiment(projectId, experimentId), eq(experimentDispatches.status, "pending")))
      .returning({ id: experimentDispatches.id });
    await tx
      .update(experiments)
      .set({ status: "stopped", updatedAt: sql`now()` })
      .where(and(eq(experiments.projectId, projectId), eq(experiments.id, experimentId)));
    return rows.length;
  });
}

export async function resumeDispatches(database: Database, projectId: string, experimentId: string): Promise<string[]> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .update(experimentDispatches)
      .set({ status: "pending", nextAttemptAt: sql`now()` })
      .where(and(ofExperiment(projectId, experimentId), eq(experimentDispatches.status, "stopped")))
      .returning({ id: experimentDispatches.id });
    await tx
      .update(experiments)
      .set({ status: "running", updatedAt: sql`now()` })
      .where(and(eq(experiments.projectId, projectId), eq(experiments.id, experimentId)));
    return rows.map((r) => r.id);
  });
}

/** Ids of pending dispatches of an experiment (re-enqueued by a start or resume). */
export async function pendingDispatchIds(database: Database, projectId: string, experimentId: string): Promise<string[]> {
  const rows = await database.db
    .select({ id: experimentDispatches.id })
    .from(experimentDispatches)
    .where(and(ofExperiment(projectId, experimentId), eq(experimentDispatches.status, "pending")));
  return rows.map((r) => r.id);
}

/**
 * Pending dispatches (stop turns them stopped) due for longer than `quietBeforeMs` (oldest first): their
 * experiment.dispatch job was lost or never enqueued (the queue was down at start), or it waits on a
 * slot (then a re-enqueue of its key is a no-op). The sweeper enqueues them again.
 */
export async function listOverdueDispatches(database: Database, opts: { quietBeforeMs: number; limit: number }): Promise<string[]> {
  const rows = rowsOf(
    await database.db.execute(sql`SELECT d.id FROM experiment_dispatches d
      WHERE d.status = 'pending' AND d.next_attempt_at <= now() - ${`${opts.quietBeforeMs} milliseconds`}::interval
      ORDER BY d.next_attempt_at LIMIT ${opts.limit}`),
  );
  return rows.map((r) => String(r.id));
}

export interface DispatchProgress {
  expected: number;
  pending: number;
  running: number;
  scored: number;
  failed: number;
  timedOut: number;
  stopped: number;
}

/** The progress of an experiment's runs, or of a replay's re-runs (kind "replay"). */
export async function dispatchProgress(database: Database, projectId: string, experimentId: string, kind: DispatchKind): Promise<DispatchProgress> {
  const [row] = rowsOf(
    await database.db.execute(sql`SELECT count(*)::int AS expected,
        count(*) FILTER (WHERE d.status = 'pending')::int AS pending,
        count(*) FILTER (WHERE d.status = 'sent' AND ${sql.raw(scoredMatch("d"))})::int AS scored,
        count(*) FILTER (WHERE d.status = 'sent' AND NOT ${sql.raw(scoredMatch("d"))} AND d.deadline_at > now())::int AS running,
        count(*) FILTER (WHERE d.status = 'sent' AND NOT ${sql.raw(scoredMatch("d"))} AND d.deadline_at <= now())::int AS timed_out,
        count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
        count(*) FILTER (WHERE d.status = 'stopped')::int AS stopped
      FROM experiment_dispatches d WHERE d.project_id = ${projectId} AND d.kind = ${kind} AND d.experiment_id = ${experimentId}`),
  );
  const n = (k: string) => Number(row?.[k] ?? 0);
  return {
    expected: n("expected"),
    pending: n("pending"),
    running: n("running"),
    scored: n("scored"),
    failed: n("failed"),
    timedOut: n("timed_out"),
    stopped: n("stopped"),
  };
}
