/**
 * trace_verdicts: results that cost money to compute (judge verdicts), one row per
 * (project, trace, producer id, producer version, model, input hash). Rows are never
 * deleted: a re-settle or re-score keeps them, and a producer whose row for the current
 * input hash exists is not run again, unless that row is a failed verdict due for a retry
 * (its retry_at is past: its backoff ran out, or POST /traces/:id/judge asked); the retry's
 * verdict replaces the failed row.
 */
import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { recordJudgeFindings } from "./findings.ts";
import { failedAndDue, leaseOf } from "./leases.ts";
import { judgeLeases } from "../schema/judges.ts";
import { traceVerdicts } from "../schema/judges.ts";
import { decodeOrdinalCursor, encodeCursor } from "../sql/util.ts";

export interface VerdictKey {
  producerId: string;
  producerVersion: number;
  /** The model that produced it ('' for a producer that calls none). */
  model: string;
  inputHash: string;
}

export interface VerdictRow extends VerdictKey {
  status: "succeeded" | "failed";
  result: unknown;
  createdAt: Date;
  /** Runs that stored this key (a failed verdict retried counts one more). */
  attempts: number;
  /** When a failed verdict is run again; null: never on its own (succeeded, or past its last automatic retry). */
  retryAt: Date | null;
  /** Milliseconds until retryAt on the database's clock (0 or less: due now); null with retryAt. */
  retryInMs: number | null;
}

/** Every verdict stored for the trace, oldest first. */
export async function listVerdicts(database: Database, projectId: string, traceId: string): Promise<VerdictRow[]> {
  return readVerdicts(database, projectId, traceId);
}

/** One page of the trace's verdicts, oldest first; the cursor is the next row's ordinal. */
export async function listVerdictsPage(
  database: Database,
  projectId: string,
  traceId: string,
  q: { cursor?: string | undefined; limit: number },
): Promise<{ items: VerdictRow[]; nextCursor: string | null }> {
  const offset = q.cursor === undefined ? 0 : decodeOrdinalCursor(q.cursor);
  const rows = await readVerdicts(database, projectId, traceId, { offset: Math.max(0, offset), limit: q.limit + 1 });
  return { items: rows.slice(0, q.limit), nextCursor: rows.length > q.limit ? encodeCursor([offset + q.limit]) : null };
}

async function readVerdicts(database: Database, projectId: string, traceId: string, page?: { offset: number; limit: number }): Promise<VerdictRow[]> {
  const query = database.db
    .select({
      ...getTableColumns(traceVerdicts),
      // On the database's clock, which also decides a retry's lease and store (failedAndDue).
      retryInMs: sql<number | null>`(extract(epoch from (${traceVerdicts.retryAt} - now())) * 1000)::float8`,
    })
    .from(traceVerdicts)
    .where(and(eq(traceVerdicts.projectId, projectId), eq(traceVerdicts.traceId, traceId)))
    .orderBy(
      asc(traceVerdicts.createdAt),
      asc(traceVerdicts.producerId),
      asc(traceVerdicts.producerVersion),
      asc(traceVerdicts.model),
      asc(traceVerdicts.inputHash),
    );
  const rows = page ? await query.offset(page.offset).limit(page.limit) : await query;
  return rows.map((r) => ({
    producerId: r.producerId,
    producerVersion: r.producerVersion,
    model: r.model,
    inputHash: r.inputHash,
    status: r.status as VerdictRow["status"],
    result: r.result,
    createdAt: r.createdAt,
    attempts: r.attempts,
    retryAt: r.retryAt,
    retryInMs: r.retryInMs === null ? null : Number(r.retryInMs),
  }));
}

/**
 * Stores a verdict; false when one with the same key already exists and is not a failed
 * verdict due for a retry (it is kept as it was). A retried key's row is replaced, its attempts
 * counted. A failed verdict carries `retryInMs`: when it is run again on its own (null: only
 * on request). A judge's verdict (`judge.<kind>`) becomes its current verdict on the trace in
 * the same transaction (findings.ts), so its findings join the rates at once.
 * `leaseHolder`: the holder's judge lease of this verdict ends in the same transaction
 * (leases.ts), so no other worker sees the lease free and the verdict missing.
 */
export async function insertVerdict(
  database: Database,
  projectId: string,
  traceId: string,
  verdict: VerdictKey & { status: VerdictRow["status"]; result: unknown; retryInMs?: number | null },
  opts: { leaseHolder?: string } = {},
): Promise<boolean> {
  const { retryInMs = null, ...row } = verdict;
  const retryAt = row.status === "failed" && retryInMs !== null ? sql`now() + ${Math.max(0, Math.ceil(retryInMs))} * interval '1 millisecond'` : null;
  return database.db.transaction(async (tx) => {
    if (opts.leaseHolder !== undefined) await tx.delete(judgeLeases).where(leaseOf(projectId, traceId, row, opts.leaseHolder));
    const rows = await tx
      .insert(traceVerdicts)
      .values({ projectId, traceId, ...row, retryAt })
      .onConflictDoUpdate({
        target: [
          traceVerdicts.projectId,
          traceVerdicts.traceId,
          traceVerdicts.producerId,
          traceVerdicts.producerVersion,
          traceVerdicts.model,
          traceVerdicts.inputHash,
        ],
        set: { status: row.status, result: row.result, retryAt, createdAt: sql`now()`, attempts: sql`${traceVerdicts.attempts} + 1` },
        setWhere: failedAndDue(sql`${traceVerdicts.status}`, sql`${traceVerdicts.retryAt}`),
      })
      .returning({ createdAt: traceVerdicts.createdAt });
    const stored = rows[0];
    if (stored === undefined) return false;
    await recordJudgeFindings(tx, projectId, traceId, { ...row, createdAt: stored.createdAt });
    return true;
  });
}

/**
 * POST /traces/:id/judge: the trace's failed verdicts are due at once (the judge job runs them
 * again, whatever their backoff). Returns the producers and models whose failed verdicts were
 * made due.
 */
export async function retryFailedVerdicts(database: Database, projectId: string, traceId: string): Promise<{ producerId: string; model: string }[]> {
  const rows = await database.db
    .update(traceVerdicts)
    .set({ retryAt: sql`now()` })
    .where(and(eq(traceVerdicts.projectId, projectId), eq(traceVerdicts.traceId, traceId), eq(traceVerdicts.status, "failed")))
    .returning({ producerId: traceVerdicts.producerId, model: traceVerdicts.model });
  return rows;
}
