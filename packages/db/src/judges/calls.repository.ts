/**
 * judge_calls: one row per provider call (tokens, cost, latency, outcome). The
 * rows are what the daily budget sums and what GET /judge-calls lists, newest
 * first, with a keyset cursor on (created_at, id).
 */
import { and, eq, gte, lt, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../client.ts";
import { decodeCursor, descAlongIndex, encodeCursor } from "../sql/util.ts";
import { judgeCalls } from "../schema/judges.ts";

export interface JudgeCallInput {
  kind: string;
  promptVersion: number;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  latencyMs: number;
  outcome: string;
  error: string | null;
}

export interface StoredJudgeCall extends JudgeCallInput {
  id: number;
  traceId: string;
  createdAt: Date;
}

export interface JudgeCallsQuery {
  traceId?: string | undefined;
  kind?: string | undefined;
  outcome?: string | undefined;
  since?: Date | undefined;
  cursor?: string | undefined;
  limit: number;
}

export async function insertJudgeCalls(database: Database, projectId: string, traceId: string, calls: readonly JudgeCallInput[], at: Date): Promise<void> {
  if (calls.length === 0) return;
  await database.db.insert(judgeCalls).values(calls.map((c) => ({ ...c, projectId, traceId, createdAt: at })));
}

/** Dollars the project's judge calls cost since `since` (calls without a price count 0). */
export async function judgeSpendSince(database: Database, projectId: string, since: Date): Promise<number> {
  const [row] = await database.db
    .select({ spent: sql<string | number | null>`coalesce(sum(${judgeCalls.costUsd}), 0)` })
    .from(judgeCalls)
    .where(and(eq(judgeCalls.projectId, projectId), gte(judgeCalls.createdAt, since)));
  return Number(row?.spent ?? 0);
}

export async function listJudgeCalls(
  database: Database,
  projectId: string,
  q: JudgeCallsQuery,
): Promise<{ items: StoredJudgeCall[]; nextCursor: string | null }> {
  const where: (SQL | undefined)[] = [eq(judgeCalls.projectId, projectId)];
  if (q.traceId !== undefined) where.push(eq(judgeCalls.traceId, q.traceId));
  if (q.kind !== undefined) where.push(eq(judgeCalls.kind, q.kind));
  if (q.outcome !== undefined) where.push(eq(judgeCalls.outcome, q.outcome));
  if (q.since !== undefined) where.push(gte(judgeCalls.createdAt, q.since));
  if (q.cursor !== undefined) {
    const [at, id] = decodeCursor(q.cursor, 2);
    // [created at in ms, id], as encoded: integers, the time within years 1970-9999 (no Postgres specials).
    const ok = Number.isInteger(at) && Number.isInteger(id) && (at as number) >= 0 && (at as number) < 253_402_300_800_000 && (id as number) > 0;
    if (!ok) decodeCursor("", 2); // throws invalid_cursor
    const atDate = new Date(at as number);
    where.push(or(lt(judgeCalls.createdAt, atDate), and(eq(judgeCalls.createdAt, atDate), lt(judgeCalls.id, id as number))));
  }
  const rows = await database.db
    .select()
    .from(judgeCalls)
    .where(and(...where))
    .orderBy(descAlongIndex(judgeCalls.createdAt), descAlongIndex(judgeCalls.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  const items = page.map((r) => ({
    id: r.id,
    traceId: r.traceId,
    kind: r.kind,
    promptVersion: r.promptVersion,
    provider: r.provider,
    model: r.model,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    costUsd: r.costUsd,
    latencyMs: r.latencyMs,
    outcome: r.outcome,
    error: r.error,
    createdAt: r.createdAt,
  }));
  return { items, nextCursor: rows.length > q.limit && last ? encodeCursor([last.createdAt.getTime(), last.id]) : null };
}
