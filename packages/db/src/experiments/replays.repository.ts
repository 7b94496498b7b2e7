/**
 * Counterfactual replays (docs/experiments.md §9): the replay row and its re-runs, planned as
 * experiment_dispatches of kind 'replay' (one per correction set × trial) so the experiment
 * dispatch job sends them with the same signing, outbound guard, concurrency and timeouts.
 * A re-run's state is its dispatch's, and scored once a trace tagged with the replay id,
 * the set (crux.variant) and the trial arrives; its outcome is the run's (API override or
 * tracer tag, else the outcome judge's current grade).
 */
import { randomUUID } from "node:crypto";
import { replayAttribution, replayReport, type ReplayPick, type ReplayReport, type ReplayRun, type ReplaySet } from "@crux/core";
import { and, desc, eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { outcomeJudgeId } from "../judges/findings.ts";
import { experimentDispatches, replays } from "../schema/experiments.ts";

export interface ReplayCorrection {
  /** The corrected agent (for a step correction: the agent of its span, when known). */
  agent: string | null;
  /** The step (span) whose output is replaced; null for an agent correction. */
  spanId: string | null;
  output: unknown;
}

/** The id of a correction's own set: "span:<spanId>" for a step correction, else "agent:<name>". */
export const replaySetId = (c: Pick<ReplayCorrection, "agent" | "spanId">): string => (c.spanId !== null ? `span:${c.spanId}` : `agent:${c.agent ?? ""}`);

export interface ReplayTask {
  /** Where the input comes from: the trace's dataset item, else its root span's input. */
  source: "dataset" | "root_span";
  taskId: string | null;
  input: unknown;
  expected: unknown;
}

export interface ReplayInput {
  projectId: string;
  traceId: string;
  runnerId: string;
  trials: number;
  corrections: ReplayCorrection[];
  sets: ReplaySet[];
  task: ReplayTask;
  runTimeoutMs: number;
}

export interface StoredReplay extends ReplayInput {
  id: string;
  createdAt: Date;
}

const toStored = (r: typeof replays.$inferSelect): StoredReplay => ({
  ...r,
  corrections: r.corrections as ReplayCorrection[],
  sets: r.sets as ReplaySet[],
  task: r.task as ReplayTask,
});

/** Stores the replay and plans one dispatch per correction set × trial; returns the replay and the dispatch ids to enqueue. */
export async function createReplay(database: Database, input: ReplayInput): Promise<{ replay: StoredReplay; dispatchIds: string[] }> {
  const id = randomUUID();
  return database.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(replays)
      .values({ id, ...input })
      .returning();
    const runs = input.sets.flatMap((s) => Array.from({ length: input.trials }, (_, trial) => ({ variant: s.id, trial })));
    const ids =
      runs.length === 0
        ? []
        : await tx
            .insert(experimentDispatches)
            .values(
              runs.map((r) => ({
                id: randomUUID(),
                projectId: input.projectId,
                kind: "replay",
                experimentId: id,
                variant: r.variant,
                taskId: input.task.taskId ?? input.traceId,
                trial: r.trial,
                status: "pending",
                nextAttemptAt: sql`now()`,
              })),
            )
            .returning({ id: experimentDispatches.id });
    return { replay: toStored(row as typeof replays.$inferSelect), dispatchIds: ids.map((r) => r.id) };
  });
}

export async function getReplay(database: Database, projectId: string, id: string): Promise<StoredReplay | null> {
  const [row] = await database.db
    .select()
    .from(replays)
    .where(and(eq(replays.projectId, projectId), eq(replays.id, id)));
  return row === undefined ? null : toStored(row);
}

/** A trace's replays, newest first (a trace is replayed a handful of times: not paged). */
export async function listReplays(database: Database, projectId: string, traceId: string): Promise<StoredReplay[]> {
  const rows = await database.db
    .select()
    .from(replays)
    .where(and(eq(replays.projectId, projectId), eq(replays.traceId, traceId)))
    .orderBy(desc(replays.createdAt), desc(replays.id))
    .limit(200);
  return rows.map(toStored);
}

/**
 * Deletes the replay and its re-runs' dispatches: pending ones are never sent (their jobs find
 * nothing), sent ones are no longer waited for. Re-runs that arrive stay as traces. False for an
 * unknown replay.
 */
export async function deleteReplay(database: Database, projectId: string, id: string): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .delete(replays)
      .where(and(eq(replays.projectId, projectId), eq(replays.id, id)))
      .returning({ id: replays.id });
    if (rows.length === 0) return false;
    await tx
      .delete(experimentDispatches)
      .where(and(eq(experimentDispatches.projectId, projectId), eq(experimentDispatches.kind, "replay"), eq(experimentDispatches.experimentId, id)));
    return true;
  });
}

/** Re-runs of the given replays, by replay id. */
async function readRuns(database: Database, projectId: string, replayIds: readonly string[]): Promise<Map<string, ReplayRun[]>> {
  const byReplay = new Map<string, ReplayRun[]>();
  if (replayIds.length === 0) return byReplay;
  const rows = rowsOf(
    await database.db.execute(sql`SELECT d.experiment_id AS replay_id, d.variant, d.trial, d.status, d.deadline_at <= now() AS overdue,
        r.trace_id IS NOT NULL AS scored, r.success
      FROM experiment_dispatches d
      LEFT JOIN LATERAL (SELECT s.trace_id, coalesce(s.success, v.outcome_success) AS success FROM trace_scores s
        LEFT JOIN judge_current_verdicts v ON v.project_id = s.project_id AND v.trace_id = s.trace_id
          AND v.producer_id = ${outcomeJudgeId} AND v.status = 'succeeded'
        WHERE s.project_id = d.project_id AND s.replay_id = d.experiment_id AND s.variant = d.variant AND s.trial = d.trial
        ORDER BY s.scored_at DESC LIMIT 1) r ON true
      WHERE d.project_id = ${projectId} AND d.kind = 'replay' AND d.experiment_id = ANY(${sql.param([...replayIds])}::text[])
      ORDER BY d.variant, d.trial`),
  );
  for (const r of rows) {
    const status = String(r.status);
    // A trace that arrived is the truth, whatever the delivery recorded.
    const state: ReplayRun["state"] =
      r.scored === true ? "scored" : status === "sent" ? (r.overdue === true ? "timed_out" : "running") : (status as "pending" | "failed" | "stopped");
    const run: ReplayRun = {
      set: String(r.variant),
      trial: Number(r.trial),
      state,
      success: r.success === null || r.success === undefined ? null : r.success === true,
    };
    const id = String(r.replay_id);
    byReplay.set(id, [...(byReplay.get(id) ?? []), run]);
  }
  return byReplay;
}

/** The original traces' outcomes, as a run's (API override or tracer tag, else the outcome judge's grade). */
async function readOutcomes(database: Database, projectId: string, traceIds: readonly string[]): Promise<Map<string, boolean | null>> {
  if (traceIds.length === 0) return new Map();
  const rows = rowsOf(
    await database.db.execute(sql`SELECT s.trace_id, coalesce(s.success, v.outcome_success) AS success FROM trace_scores s
      LEFT JOIN judge_current_verdicts v ON v.project_id = s.project_id AND v.trace_id = s.trace_id AND v.producer_id = ${outcomeJudgeId} AND v.status = 'succeeded'
      WHERE s.project_id = ${projectId} AND s.trace_id = ANY(${sql.param([...traceIds])}::text[])`),
  );
  return new Map(rows.map((r) => [String(r.trace_id), r.success === null || r.success === undefined ? null : r.success === true]));
}

export async function readReplayReport(database: Database, replay: StoredReplay): Promise<ReplayReport> {
  const [runs, outcomes] = await Promise.all([readRuns(database, replay.projectId, [replay.id]), readOutcomes(database, replay.projectId, [replay.traceId])]);
  return replayReport({ originalSuccess: outcomes.get(replay.traceId) ?? null, trials: replay.trials, sets: replay.sets, runs: runs.get(replay.id) ?? [] });
}

export interface ReplayAttribution extends ReplayPick {
  replayId: string;
}

/**
 * Per trace, what its newest replay that names something blames (replayAttribution: the top
 * decisive correction, or shared blame). Traces without such a replay are absent.
 */
export async function readReplayAttributions(database: Database, projectId: string, traceIds: readonly string[]): Promise<Map<string, ReplayAttribution>> {
  const out = new Map<string, ReplayAttribution>();
  if (traceIds.length === 0) return out;
  const rows = await database.db
    .select()
    .from(replays)
    .where(and(eq(replays.projectId, projectId), sql`${replays.traceId} = ANY(${sql.param([...traceIds])}::text[])`))
    .orderBy(desc(replays.createdAt), desc(replays.id));
  if (rows.length === 0) return out;
  const stored = rows.map(toStored);
  const [runs, outcomes] = await Promise.all([
    readRuns(
      database,
      projectId,
      stored.map((r) => r.id),
    ),
    readOutcomes(database, projectId, [...new Set(stored.map((r) => r.traceId))]),
  ]);
  for (const r of stored) {
    if (out.has(r.traceId)) continue;
    const pick = replayAttribution(
      replayReport({ originalSuccess: outcomes.get(r.traceId) ?? null, trials: r.trials, sets: r.sets, runs: runs.get(r.id) ?? [] }),
    );
    if (pick !== null) out.set(r.traceId, { replayId: r.id, ...pick });
  }
  return out;
}
