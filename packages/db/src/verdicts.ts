/**
 * trace_verdicts: results that cost money to compute (judge verdicts), one row per
 * (project, trace, producer id, producer version, model, input hash). Rows are only ever
 * added: a re-settle or re-score never deletes them, and a producer whose row for
 * the current input hash exists is not run again.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "./client.ts";
import { recordJudgeFindings } from "./judge-findings.ts";
import { leaseOf } from "./judge-leases.ts";
import { judgeLeases } from "./schema-judging.ts";
import { traceVerdicts } from "./schema.ts";
import { decodeOrdinalCursor, encodeCursor } from "./scores/sql-util.ts";

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
    .select()
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
  }));
}

/**
 * Stores a verdict; false when one with the same key already exists (it is kept as it was).
 * A judge's verdict (`judge.<kind>`) becomes its current verdict on the trace in the same
 * transaction (judge-findings.ts), so its findings join the rates at once. `leaseHolder`: the
 * holder's judge lease of this verdict ends in the same transaction (judge-leases.ts), so no
 * other worker sees the lease free and the verdict missing.
 */
export async function insertVerdict(
  database: Database,
  projectId: string,
  traceId: string,
  verdict: VerdictKey & { status: VerdictRow["status"]; result: unknown },
  opts: { leaseHolder?: string } = {},
): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    if (opts.leaseHolder !== undefined) await tx.delete(judgeLeases).where(leaseOf(projectId, traceId, verdict, opts.leaseHolder));
    const rows = await tx
      .insert(traceVerdicts)
      .values({ projectId, traceId, ...verdict })
      .onConflictDoNothing()
      .returning({ createdAt: traceVerdicts.createdAt });
    const stored = rows[0];
    if (stored === undefined) return false;
    await recordJudgeFindings(tx, projectId, traceId, { ...verdict, createdAt: stored.createdAt });
    return true;
  });
}
