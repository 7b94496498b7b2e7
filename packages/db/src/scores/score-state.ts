/**
 * What the score stage reads before deciding whether to score, in one round
 * trip (docs/architecture.md §6): the trace summary, the outcome override,
 * the stored set's input hash and task id, and a fingerprint of everything
 * loadScoringConfig and findBaselineRun read for the project, so the worker
 * can keep the scoring configuration between jobs and reload it only when
 * the fingerprint changes; and the judge settings' stamp, for the same reason.
 */
import type { RunTagsOverride } from "@crux/core";
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { traces } from "../schema.ts";
import { judgeSettingsStampSql } from "../judges/settings.repository.ts";
import type { TraceSummary } from "../traces.ts";

export interface ScoreJobState {
  trace: TraceSummary;
  override: RunTagsOverride | null;
  /** The stored score set's version, input hash, task id and outcome; null when the trace has none. */
  stored: { version: number; inputHash: string | null; taskId: string | null; success: boolean | null } | null;
  /** Changes whenever a row scoring's configuration or baseline reads for the project changes. */
  configFingerprint: string;
  /** The project's judge settings stamp (judgeSettingsStamp), so the judge policy needs no read of its own. */
  judgeSettingsStamp: string;
}

/** Every row of a config table for the project, in id order, as text (so any change to any column changes it). */
const rowsText = (table: string, projectId: string) =>
  sql`(SELECT string_agg(c::text, ',' ORDER BY c.id) FROM ${sql.identifier(table)} c WHERE c.project_id = ${projectId})`;

/**
 * The configuration tables (prices, contracts, milestone sets, configured baselines, settings) and
 * the totals of the baseline-tagged runs, which findBaselineRun averages (partial index on is_baseline).
 */
function configFingerprintSql(projectId: string) {
  return sql<string>`md5(concat_ws('|',
    ${rowsText("prices", projectId)}, ${rowsText("agent_contracts", projectId)}, ${rowsText("handoff_contracts", projectId)},
    ${rowsText("milestone_sets", projectId)}, ${rowsText("baselines", projectId)},
    (SELECT ps::text FROM project_settings ps WHERE ps.project_id = ${projectId}),
    (SELECT string_agg(concat_ws(':', b.task_id, b.total_tokens, b.cost_usd), ',' ORDER BY b.trace_id)
       FROM trace_scores b WHERE b.project_id = ${projectId} AND b.is_baseline AND b.task_id IS NOT NULL)))`;
}

export async function readScoreJobState(database: Database, projectId: string, traceId: string): Promise<ScoreJobState | null> {
  const [row] = await database.db
    .select({
      trace: getTableColumns(traces),
      override: sql<unknown>`(SELECT o.override FROM outcome_overrides o WHERE o.project_id = ${projectId} AND o.trace_id = ${traceId})`,
      stored: sql<unknown>`(SELECT json_build_array(s.version, s.input_hash, s.task_id, s.success) FROM trace_scores s
        WHERE s.project_id = ${projectId} AND s.trace_id = ${traceId})`,
      configFingerprint: configFingerprintSql(projectId),
      judgeSettingsStamp: judgeSettingsStampSql(projectId),
    })
    .from(traces)
    .where(and(eq(traces.projectId, projectId), eq(traces.traceId, traceId)))
    .limit(1);
  if (!row) return null;
  const parse = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);
  const stored = parse(row.stored) as [number, string | null, string | null, boolean | null] | null;
  return {
    trace: row.trace,
    override: (parse(row.override) as RunTagsOverride | null) ?? null,
    stored: stored ? { version: Number(stored[0]), inputHash: stored[1], taskId: stored[2], success: stored[3] } : null,
    configFingerprint: row.configFingerprint,
    judgeSettingsStamp: row.judgeSettingsStamp,
  };
}
