/** The small reads the judge policy needs: whether a trace failed, and which models a project's agents call. */
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";

/** Did the trace fail (reported outcome false, or a span in error)? null when the trace is unknown. */
export async function traceFailed(database: Database, projectId: string, traceId: string): Promise<boolean | null> {
  const rows = await database.db.execute(sql`
    SELECT t.has_error, s.success FROM traces t
    LEFT JOIN trace_scores s ON s.project_id = t.project_id AND s.trace_id = t.trace_id
    WHERE t.project_id = ${projectId} AND t.trace_id = ${traceId}`);
  const row = rowsOf(rows)[0] as { has_error: boolean; success: boolean | null } | undefined;
  if (!row) return null;
  return row.has_error || row.success === false;
}

/** Distinct models on the spans of the project's latest `traces` traces (the models its agents use), sorted. */
export async function recentAgentModels(database: Database, projectId: string, traces = 50): Promise<string[]> {
  const rows = await database.db.execute(sql`
    SELECT DISTINCT s.model FROM spans s
    WHERE s.project_id = ${projectId} AND s.model IS NOT NULL
      AND s.trace_id IN (SELECT trace_id FROM traces WHERE project_id = ${projectId} ORDER BY start_ns DESC LIMIT ${traces})
    ORDER BY s.model LIMIT 100`);
  return rowsOf(rows).map((r) => String(r.model));
}

/** Distinct models on one trace's spans, sorted. */
export async function traceModels(database: Database, projectId: string, traceId: string): Promise<string[]> {
  const rows = await database.db.execute(sql`
    SELECT DISTINCT model FROM spans WHERE project_id = ${projectId} AND trace_id = ${traceId} AND model IS NOT NULL ORDER BY model LIMIT 100`);
  return rowsOf(rows).map((r) => String(r.model));
}
