/**
 * trace_verdicts: results that cost money to compute (judge verdicts), one row per
 * (project, trace, producer id, producer version, input hash). Rows are only ever
 * added: a re-settle or re-score never deletes them, and a producer whose row for
 * the current input hash exists is not run again.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "./client.ts";
import { recordJudgeFindings } from "./judge-findings.ts";
import { traceVerdicts } from "./schema.ts";

export interface VerdictKey {
  producerId: string;
  producerVersion: number;
  inputHash: string;
}

export interface VerdictRow extends VerdictKey {
  status: "succeeded" | "failed";
  result: unknown;
  createdAt: Date;
}

/** Every verdict stored for the trace, oldest first. */
export async function listVerdicts(database: Database, projectId: string, traceId: string): Promise<VerdictRow[]> {
  const rows = await database.db
    .select()
    .from(traceVerdicts)
    .where(and(eq(traceVerdicts.projectId, projectId), eq(traceVerdicts.traceId, traceId)))
    .orderBy(asc(traceVerdicts.createdAt), asc(traceVerdicts.producerId));
  return rows.map((r) => ({
    producerId: r.producerId,
    producerVersion: r.producerVersion,
    inputHash: r.inputHash,
    status: r.status as VerdictRow["status"],
    result: r.result,
    createdAt: r.createdAt,
  }));
}

/**
 * Stores a verdict; false when one with the same key already exists (it is kept as it was).
 * A judge's verdict (`judge.<kind>`) becomes its current verdict on the trace in the same
 * transaction (judge-findings.ts), so its findings join the rates at once.
 */
export async function insertVerdict(
  database: Database,
  projectId: string,
  traceId: string,
  verdict: VerdictKey & { status: VerdictRow["status"]; result: unknown },
): Promise<boolean> {
  return database.db.transaction(async (tx) => {
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
