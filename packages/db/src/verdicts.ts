/**
 * trace_verdicts: results that cost money to compute (judge verdicts), one row per
 * (project, trace, producer id, producer version, model, input hash). Rows are only ever
 * added: a re-settle or re-score never deletes them, and a producer whose row for
 * the current input hash exists is not run again.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "./client.ts";
import { traceVerdicts } from "./schema.ts";

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
  const rows = await database.db
    .select()
    .from(traceVerdicts)
    .where(and(eq(traceVerdicts.projectId, projectId), eq(traceVerdicts.traceId, traceId)))
    .orderBy(asc(traceVerdicts.createdAt), asc(traceVerdicts.producerId));
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

/** Stores a verdict; false when one with the same key already exists (it is kept as it was). */
export async function insertVerdict(
  database: Database,
  projectId: string,
  traceId: string,
  verdict: VerdictKey & { status: VerdictRow["status"]; result: unknown },
): Promise<boolean> {
  const rows = await database.db
    .insert(traceVerdicts)
    .values({ projectId, traceId, ...verdict })
    .onConflictDoNothing()
    .returning({ traceId: traceVerdicts.traceId });
  return rows.length > 0;
}
