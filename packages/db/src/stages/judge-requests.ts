/**
 * The judge request (traces.judge_requested_at), which makes a lost trace.judge job a delay, not
 * a drop: the score stage (or POST /traces/:id/judge) records it before enqueueing the job; the
 * judge stage clears it by compare-and-set when it is done, or moves it to when a deferred job
 * comes back (budget, rate, lease); the sweeper enqueues the job again for a request that is
 * past and quiet. A request made while a judge job runs is newer, so that job's clear keeps it.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { traces } from "../schema/traces.ts";
import { bumpRequest, listPastRequests } from "./settle.ts";

const sameTrace = (projectId: string, traceId: string) => and(eq(traces.projectId, projectId), eq(traces.traceId, traceId));

export interface JudgeRequestOptions {
  /** The score request the score stage answered: cleared in the same statement if still this value. */
  clearScoreRequest?: Date | null;
}

/**
 * Records a judge request: now, later than the one it replaces (a compare-and-set on the old value
 * then fails), and never earlier than a deferral already set. Returns the request, or null for an unknown trace.
 */
export async function requestJudge(database: Database, projectId: string, traceId: string, opts: JudgeRequestOptions = {}): Promise<Date | null> {
  const seen = opts.clearScoreRequest ?? null;
  const rows = await database.db
    .update(traces)
    .set({
      judgeRequestedAt: bumpRequest(traces.judgeRequestedAt),
      ...(seen === null
        ? {}
        : { scoreRequestedAt: sql`CASE WHEN ${traces.scoreRequestedAt} = ${seen.toISOString()}::timestamptz THEN NULL ELSE ${traces.scoreRequestedAt} END` }),
    })
    .where(sameTrace(projectId, traceId))
    .returning({ judgeRequestedAt: traces.judgeRequestedAt });
  return rows[0]?.judgeRequestedAt ?? null;
}

/** Clears the request if it is still the one the judge stage read; false when a newer one was made (it stays). */
export async function clearJudgeRequest(database: Database, projectId: string, traceId: string, seen: Date): Promise<boolean> {
  const rows = await database.db
    .update(traces)
    .set({ judgeRequestedAt: null })
    .where(and(sameTrace(projectId, traceId), eq(traces.judgeRequestedAt, seen)))
    .returning({ traceId: traces.traceId });
  return rows.length > 0;
}

/** A deferred judge job: its request moves to when the job comes back, so the sweeper leaves it alone until then. */
export async function deferJudgeRequest(database: Database, projectId: string, traceId: string, seen: Date, delayMs: number): Promise<void> {
  await database.db
    .update(traces)
    .set({ judgeRequestedAt: sql`now() + ${Math.max(0, Math.ceil(delayMs))}::double precision * interval '1 millisecond'` })
    .where(and(sameTrace(projectId, traceId), eq(traces.judgeRequestedAt, seen)));
}

export interface JudgeRequest {
  projectId: string;
  traceId: string;
  judgeRequestedAt: Date;
}

/** Settled traces whose judge request is older than quietBeforeMs (its job was lost), oldest first. */
export async function listJudgeRequests(database: Database, opts: { quietBeforeMs: number; limit: number }): Promise<JudgeRequest[]> {
  const rows = await listPastRequests(database, traces.judgeRequestedAt, opts);
  return rows.map((r) => ({ projectId: r.projectId, traceId: r.traceId, judgeRequestedAt: r.requestedAt }));
}
