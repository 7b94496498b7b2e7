/**
 * The scheduled compaction of the score rollups (the worker's rollups.compact job): pending traces
 * folded into the delta tables (pending.ts), then delta rows folded into the cells (rollups.ts).
 */
import { rowsOf, type Database } from "../client.ts";
import { foldPendingTraces } from "./pending.ts";
import { compactRollupSql, rollups } from "./rollups.ts";

export interface CompactionResult {
  /** Pending traces whose cells were appended to the delta tables. */
  foldedTraces: number;
  /** Delta rows folded into the rollups. */
  moved: number;
  /** Pending traces or delta rows still waiting (more than one run moves, or written meanwhile). */
  pending: boolean;
}

/**
 * Folds pending traces into the delta tables (pending.ts), then pending delta rows into
 * every rollup, `batchRows` at a time per rollup, until none is left or `maxRows` have moved (so
 * one run stays short; the next tick goes on). Safe to run from several processes at once.
 * Metrics are right before and after: readers add the pending traces and rows.
 */
export async function compactScoreRollups(
  database: Database,
  opts: { batchRows?: number; maxRows?: number; batchTraces?: number; maxTraces?: number } = {},
): Promise<CompactionResult> {
  const batchRows = opts.batchRows ?? 5_000;
  const maxRows = opts.maxRows ?? 200_000;
  const traces = await foldPendingTraces(database, {
    ...(opts.batchTraces ? { batchTraces: opts.batchTraces } : {}),
    ...(opts.maxTraces ? { maxTraces: opts.maxTraces } : {}),
  });
  let moved = 0;
  let pending = traces.behind;
  for (const r of rollups) {
    let ofThis = 0;
    for (;;) {
      const [row] = rowsOf(await database.db.execute(compactRollupSql(r, batchRows)));
      const n = Number(row?.moved ?? 0);
      ofThis += n;
      if (n < batchRows) break;
      if (ofThis >= maxRows) {
        pending = true;
        break;
      }
    }
    moved += ofThis;
  }
  return { foldedTraces: traces.folded, moved, pending };
}
