/**
 * Whether an experiment or replay run counts in production metrics is stored on its score row
 * (trace_scores.metrics_excluded, decided when it is scored from the project's experiment settings).
 * When the project's setting changes, the runs already stored follow it here: each run whose flag
 * disagrees with the setting has its old rollup cells taken out (when folded), its flag set and is
 * listed as pending, as a re-score does (pending-rollups.ts), so every metric reads it under the new
 * setting at once, before and after the compaction folds it. Its score request is bumped too, so
 * the score stage, finding its inputs unchanged, hands a run now counted to the judge sampling.
 */
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { appendTraceCellsSql, lockTraces, pendingAmong } from "../rollups/pending.ts";
import { bumpRequestText } from "../stages/settle.ts";

/** Brings the project's stored experiment and replay runs in line with its setting, `batch` runs per transaction; returns how many changed. */
export async function applyMetricsInclusion(database: Database, projectId: string, opts: { batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 1_000;
  let changed = 0;
  for (;;) {
    const n = await database.db.transaction(async (tx) => {
      // A run is excluded exactly when the project does not include experiment runs: it disagrees when its flag equals `include`.
      const disagreeing = sql`SELECT s.trace_id FROM trace_scores s
        WHERE s.project_id = ${projectId} AND (s.experiment_id IS NOT NULL OR s.replay_id IS NOT NULL)
          AND s.metrics_excluded = coalesce((SELECT es.include_in_metrics FROM experiment_settings es WHERE es.project_id = ${projectId}), false)`;
      const candidates = rowsOf(await tx.execute(sql`${disagreeing} ORDER BY s.trace_id LIMIT ${batch}`)).map((r) => String(r.trace_id));
      if (candidates.length === 0) return 0;
      await lockTraces(tx, projectId, candidates);
      // Read again under the locks: a score write may have set the flag meanwhile.
      const ids = rowsOf(await tx.execute(sql`${disagreeing} AND s.trace_id = ANY(${sql.param(candidates)}::text[])`)).map((r) => String(r.trace_id));
      if (ids.length === 0) return candidates.length;
      const pending = await pendingAmong(tx, projectId, ids);
      const folded = ids.filter((id) => !pending.has(id));
      // The folded runs' cells under the old flag, negated, before the flag changes what their cells are.
      if (folded.length > 0) await tx.execute(appendTraceCellsSql(projectId, folded, -1));
      const list = sql`${sql.param(ids)}::text[]`;
      await tx.execute(sql`UPDATE trace_scores SET metrics_excluded = NOT metrics_excluded WHERE project_id = ${projectId} AND trace_id = ANY(${list})`);
      await tx.execute(sql`INSERT INTO score_rollup_pending (project_id, trace_id) SELECT ${projectId}, t FROM unnest(${list}) t ON CONFLICT DO NOTHING`);
      await tx.execute(
        sql`UPDATE traces SET score_requested_at = ${sql.raw(bumpRequestText("score_requested_at"))}
          WHERE project_id = ${projectId} AND trace_id = ANY(${list}) AND span_set_hash IS NOT NULL`,
      );
      changed += ids.length;
      return candidates.length;
    });
    if (n < batch) return changed;
  }
}
