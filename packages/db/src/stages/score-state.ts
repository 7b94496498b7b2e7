/**
 * What the score stage reads before deciding whether to score, in one round
 * trip (docs/architecture.md §6): the trace summary, the outcome override,
 * the stored set's input hash and task id, and a fingerprint of everything
 * loadScoringConfig and findBaselineRun read for the project, so the worker
 * can keep the scoring configuration between jobs and reload it only when
 * the fingerprint changes; and the judge settings' stamp, for the same reason.
 */
import type { RunTagsOverride } from "@crux/core";
import { queryRows, type Database } from "../client.ts";
import { judgeSettingsStampText } from "../judges/settings.repository.ts";
import { traces } from "../schema/traces.ts";
import { tableRowReader } from "../sql/table-rows.ts";
import type { TraceRow as TraceSummary } from "../schema/traces.ts";

export interface ScoreJobState {
  trace: TraceSummary;
  override: RunTagsOverride | null;
  /** The stored score set's version, input hash, task id and outcome; null when the trace has none. */
  stored: { version: number; inputHash: string | null; taskId: string | null; success: boolean | null; metricsExcluded: boolean } | null;
  /** The project counts experiment and replay runs in production metrics and judge sampling (experiment_settings). */
  experimentsInMetrics: boolean;
  /** Changes whenever a row scoring's configuration or baseline reads for the project changes. */
  configFingerprint: string;
  /** The project's judge settings stamp (judgeSettingsStamp), so the judge policy needs no read of its own. */
  judgeSettingsStamp: string;
}

/** Every row of a config table for the project ($1), in id order, as text (so any change to any column changes it). */
const rowsText = (table: string) => `(SELECT string_agg(c::text, ',' ORDER BY c.id) FROM ${table} c WHERE c.project_id = $1)`;

/**
 * The configuration tables (prices, contracts, milestone sets, configured baselines, settings) and
 * the totals of the baseline-tagged runs, which findBaselineRun averages (partial index on is_baseline).
 */
const configFingerprintText = `md5(concat_ws('|',
    ${rowsText("prices")}, ${rowsText("agent_contracts")}, ${rowsText("handoff_contracts")},
    ${rowsText("milestone_sets")}, ${rowsText("baselines")},
    (SELECT ps::text FROM project_settings ps WHERE ps.project_id = $1),
    (SELECT string_agg(concat_ws(':', b.task_id, b.total_tokens, b.cost_usd), ',' ORDER BY b.trace_id)
       FROM trace_scores b WHERE b.project_id = $1 AND b.is_baseline AND b.task_id IS NOT NULL)))`;

const traceRow = tableRowReader(traces);

// Fixed text ($1 project, $2 trace), run unnamed with its values: building it through drizzle cost
// more client CPU per score job than running it.
const scoreJobStateStatement = `SELECT ${traceRow.selectList("t")},
    (SELECT o.override FROM outcome_overrides o WHERE o.project_id = $1 AND o.trace_id = $2),
    (SELECT json_build_array(s.version, s.input_hash, s.task_id, s.success, s.metrics_excluded) FROM trace_scores s
      WHERE s.project_id = $1 AND s.trace_id = $2),
    ${configFingerprintText},
    ${judgeSettingsStampText("$1")},
    coalesce((SELECT es.include_in_metrics FROM experiment_settings es WHERE es.project_id = $1), false)
  FROM traces t
  WHERE t.project_id = $1 AND t.trace_id = $2
  LIMIT 1`;

export async function readScoreJobState(database: Database, projectId: string, traceId: string): Promise<ScoreJobState | null> {
  const [row] = await queryRows(database, { text: scoreJobStateStatement, values: [projectId, traceId] });
  if (!row) return null;
  const at = traceRow.width;
  const parse = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);
  const stored = parse(row[at + 1]) as [number, string | null, string | null, boolean | null, boolean] | null;
  return {
    trace: traceRow.decode(row),
    override: (parse(row[at]) as RunTagsOverride | null) ?? null,
    stored: stored ? { version: Number(stored[0]), inputHash: stored[1], taskId: stored[2], success: stored[3], metricsExcluded: stored[4] === true } : null,
    configFingerprint: row[at + 2] as string,
    judgeSettingsStamp: row[at + 3] as string,
    experimentsInMetrics: row[at + 4] === true,
  };
}
