/** Per-trace reads of the stored score set (what the worker last persisted). */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { traceAgentUsage, traceAttributions, traceFindings, traceHandoffs, traceScores, traceTrajectories, type TraceScoreRow } from "../schema/scores.ts";
import { currentMultipliers } from "./baselines.ts";
import { clampLimit, decodeOrdinalCursor, encodeCursor } from "../sql/util.ts";

export interface TraceScoreStatus {
  /** The trace has spans (traces row) or a stored score set. */
  exists: boolean;
  scored: boolean;
}

/** One round trip: is the trace known, and has it been scored. */
export async function traceScoreStatus(database: Database, projectId: string, traceId: string): Promise<TraceScoreStatus> {
  const [row] = rowsOf(
    await database.db.execute(sql`SELECT
      EXISTS (SELECT 1 FROM traces WHERE project_id = ${projectId} AND trace_id = ${traceId}) AS has_trace,
      EXISTS (SELECT 1 FROM trace_scores WHERE project_id = ${projectId} AND trace_id = ${traceId}) AS scored`),
  );
  const scored = row?.scored === true;
  return { exists: row?.has_trace === true || scored, scored };
}

export type TraceScoreSummary = TraceScoreRow;
export type TraceAgentUsageRow = typeof traceAgentUsage.$inferSelect;

export async function getTraceScores(
  database: Database,
  projectId: string,
  traceId: string,
): Promise<{ summary: TraceScoreSummary; agents: TraceAgentUsageRow[] } | null> {
  const [summary] = await database.db
    .select()
    .from(traceScores)
    .where(and(eq(traceScores.projectId, projectId), eq(traceScores.traceId, traceId)))
    .limit(1);
  if (!summary) return null;
  // Multipliers against the task's baseline as it is now (baselines.ts), as /metrics/cost-multiplier computes them.
  const m = await currentMultipliers(database, projectId, summary);
  const current: TraceScoreSummary = {
    ...summary,
    tokenMultiplier: m.tokens.value,
    tokenObserved: m.tokens.observed,
    tokenBaseline: m.tokens.baseline,
    tokenBaselineSource: m.tokens.source,
    costMultiplier: m.cost.value,
    costObserved: m.cost.observed,
    costBaseline: m.cost.baseline,
    costBaselineSource: m.cost.source,
  };
  const agents = await database.db
    .select()
    .from(traceAgentUsage)
    .where(and(eq(traceAgentUsage.projectId, projectId), eq(traceAgentUsage.traceId, traceId)))
    .orderBy(asc(traceAgentUsage.agent));
  return { summary: current, agents };
}

export type TraceAttributionRow = typeof traceAttributions.$inferSelect;
export type TraceHandoffRow = typeof traceHandoffs.$inferSelect;

/** The stored score set of a trace as GET /traces/:traceId serves it: no multipliers, no findings. */
export interface TraceScoring {
  summary: Pick<TraceScoreRow, "version" | "scoredAt" | "inputTokens" | "outputTokens" | "cachedTokens" | "totalTokens" | "costUsd" | "unpricedModels">;
  agents: TraceAgentUsageRow[];
  handoffs: TraceHandoffRow[];
  attributions: TraceAttributionRow[];
}

/**
 * The trace's stored summary totals, per-agent usage, handoffs and attributions, or null when it
 * has not been scored. One read-only snapshot: a re-score committing meanwhile is seen whole or
 * not at all (the four reads never mix two versions).
 */
export async function getTraceScoring(database: Database, projectId: string, traceId: string): Promise<TraceScoring | null> {
  return database.db.transaction(
    async (tx) => {
      const [summary] = await tx
        .select({
          version: traceScores.version,
          scoredAt: traceScores.scoredAt,
          inputTokens: traceScores.inputTokens,
          outputTokens: traceScores.outputTokens,
          cachedTokens: traceScores.cachedTokens,
          totalTokens: traceScores.totalTokens,
          costUsd: traceScores.costUsd,
          unpricedModels: traceScores.unpricedModels,
        })
        .from(traceScores)
        .where(and(eq(traceScores.projectId, projectId), eq(traceScores.traceId, traceId)))
        .limit(1);
      if (!summary) return null;
      const agents = await tx
        .select()
        .from(traceAgentUsage)
        .where(and(eq(traceAgentUsage.projectId, projectId), eq(traceAgentUsage.traceId, traceId)))
        .orderBy(asc(traceAgentUsage.agent));
      const handoffs = await tx
        .select()
        .from(traceHandoffs)
        .where(and(eq(traceHandoffs.projectId, projectId), eq(traceHandoffs.traceId, traceId)))
        .orderBy(asc(traceHandoffs.idx));
      const attributions = await tx
        .select()
        .from(traceAttributions)
        .where(and(eq(traceAttributions.projectId, projectId), eq(traceAttributions.traceId, traceId)))
        .orderBy(asc(traceAttributions.ord));
      return { summary, agents, handoffs, attributions };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

export type TraceFindingRow = typeof traceFindings.$inferSelect;

/** Findings in the record's order (by step, then mode), keyset-paginated by position. */
export async function listTraceFindings(
  database: Database,
  projectId: string,
  traceId: string,
  opts: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: TraceFindingRow[]; nextCursor: string | null }> {
  const limit = clampLimit(opts.limit);
  const after = opts.cursor === undefined ? null : decodeOrdinalCursor(opts.cursor);
  const rows = await database.db
    .select()
    .from(traceFindings)
    .where(and(eq(traceFindings.projectId, projectId), eq(traceFindings.traceId, traceId), after === null ? undefined : gt(traceFindings.ord, after)))
    .orderBy(asc(traceFindings.ord))
    .limit(limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor([last.ord]) : null };
}

export async function listTraceAttributions(database: Database, projectId: string, traceId: string): Promise<TraceAttributionRow[]> {
  return database.db
    .select()
    .from(traceAttributions)
    .where(and(eq(traceAttributions.projectId, projectId), eq(traceAttributions.traceId, traceId)))
    .orderBy(asc(traceAttributions.ord));
}

export async function listTraceHandoffs(database: Database, projectId: string, traceId: string): Promise<TraceHandoffRow[]> {
  return database.db
    .select()
    .from(traceHandoffs)
    .where(and(eq(traceHandoffs.projectId, projectId), eq(traceHandoffs.traceId, traceId)))
    .orderBy(asc(traceHandoffs.idx));
}

export interface StoredTrajectoryStep {
  index: number;
  spanId: string;
  kind: string;
  toolName: string | null;
  isError: boolean;
  inputTokens: number;
  outputTokens: number;
  startNs: bigint;
}

export async function listTraceTrajectories(
  database: Database,
  projectId: string,
  traceId: string,
): Promise<{ agent: string; steps: StoredTrajectoryStep[] }[]> {
  const rows = await database.db
    .select()
    .from(traceTrajectories)
    .where(and(eq(traceTrajectories.projectId, projectId), eq(traceTrajectories.traceId, traceId)))
    // Agents in the order they first act in the trace (their first step's index), not by name.
    .orderBy(sql`(${traceTrajectories.steps} -> 0 ->> 'index')::int NULLS LAST`, asc(traceTrajectories.agent));
  return rows.map((r) => ({
    agent: r.agent,
    steps: (r.steps as (Omit<StoredTrajectoryStep, "startNs"> & { startNs: string })[]).map((s) => ({ ...s, startNs: BigInt(s.startNs) })),
  }));
}
