/**
 * Pending traces: score sets written but not yet in any rollup (score_rollup_pending).
 *
 * Why: computing a trace's cells while its score set is written planned one large statement per
 * write (six rollups' aggregations; about 7 ms of Postgres planning each, more than half of
 * Postgres's time per scored trace in bench:pipeline). A write now only lists its traces here;
 * the scheduled compaction folds them in batches of hundreds, so one plan and one set-based
 * aggregation serve a whole batch.
 *
 * Invariant, for every scored trace: its cells (rollups.ts `cells` over its current base rows)
 * are in the stored cells plus the delta rows exactly when it is not listed here. Readers add
 * the cells of the listed traces computed from their base rows (metrics/rollup-source.ts), so every
 * answer is the same before and after a fold. Writers keep the invariant under the trace's lock
 * (lockTraces): a score write of a trace already folded first appends its old cells negated,
 * then lists it; a judge write of a listed trace adds no delta (the fold will count it).
 */
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type CruxDb, type Database } from "../client.ts";
import { cellsByName, deltaTableOf, rollupColumnNames, rollups, type BaseWhere, type Rollup } from "./rollups.ts";

type Tx = Parameters<Parameters<CruxDb["transaction"]>[0]>[0];

/**
 * Transaction-scoped advisory locks on traces' score data, taken in one global order (by hash) so
 * two writers of overlapping traces cannot deadlock. Every writer of rows the rollups read (score
 * sets, judge findings) and the fold take them before reading any state they decide on.
 */
export async function lockTraces(tx: Tx | CruxDb, projectId: string, traceIds: readonly string[]): Promise<void> {
  await tx.execute(sql`SELECT ${lockTracesSql(traceIds.map((id) => [projectId, id]))}`);
}

/** The advisory lock key of a trace's score data. */
export const traceLockKey = (projectId: string, traceId: string): string => `crux.scores:${projectId}:${traceId}`;

/** The locks of the keys in `keys` (a text[] expression) as one SQL expression, in one global order. */
const lockKeysText = (keys: string): string =>
  `(SELECT count(pg_advisory_xact_lock(l.h)) FROM (SELECT hashtextextended(k, 0) AS h FROM unnest(${keys}) k ORDER BY 1) l)`;

/** The locks of the keys in parameter $n, for a fixed statement. */
export const lockTracesText = (n: number): string => lockKeysText(`$${n}::text[]`);

const [lockBefore, lockAfter] = lockKeysText("\u0000").split("\u0000") as [string, string];

/** The locks as one SQL expression (so a caller can take them in a statement it sends anyway). */
function lockTracesSql(traces: readonly (readonly [string, string])[]): SQL {
  const keys = traces.map(([projectId, id]) => traceLockKey(projectId, id));
  return sql`${sql.raw(lockBefore)}${sql.param(keys)}::text[]${sql.raw(lockAfter)}`;
}

/** Rows of a base-table alias belonging to some traces of a project. */
const tracesIn =
  (projectId: string, traceIds: readonly string[]): BaseWhere =>
  (a) =>
    sql`${sql.raw(a)}.project_id = ${projectId} AND ${sql.raw(a)}.trace_id = ANY(${sql.param([...traceIds])}::text[])`;

/** Rows of a base-table alias belonging to the project's pending traces (an init plan, then index lookups by trace id). */
export const pendingTracesOf =
  (projectId: string): BaseWhere =>
  (a) =>
    sql`${sql.raw(a)}.project_id = ${projectId} AND ${sql.raw(a)}.trace_id = ANY(ARRAY(SELECT p.trace_id FROM score_rollup_pending p WHERE p.project_id = ${projectId}))`;

/** INSERT into the rollup's delta table of the cells of `where`, negated or as they are. */
function appendCellsSql(r: Rollup, where: BaseWhere, sign: 1 | -1): SQL {
  const cols = rollupColumnNames(r);
  const measures = new Set(r.measures.map(([n]) => n));
  const select = cols.map((c) => (sign === -1 && measures.has(c) ? `-c.${c}` : `c.${c}`)).join(", ");
  return sql`INSERT INTO ${sql.identifier(deltaTableOf(r))} (${sql.raw(cols.join(", "))}) SELECT ${sql.raw(select)} FROM (${cellsByName(r, where)}) c`;
}

/** `WITH p0 AS (q0), p1 AS (q1), ... SELECT 1`: data-modifying statements sent as one. */
function withAll(prefix: string, statements: SQL[]): SQL {
  return sql`WITH ${sql.join(
    statements.map((q, i) => sql`${sql.identifier(`${prefix}${i}`)} AS (${q})`),
    sql`, `,
  )} SELECT 1`;
}

/** Every rollup's cells of the traces, appended to the delta tables negated (before their rows are replaced) or as they are (a fold). */
export function appendTraceCellsSql(projectId: string, traceIds: readonly string[], sign: 1 | -1): SQL {
  return withAll(
    "r",
    rollups.map((r) => appendCellsSql(r, tracesIn(projectId, traceIds), sign)),
  );
}

/** Lists the traces of two parameter expressions (the project's text, the traces' text[]) as pending (no-op for those already listed). */
export const markPendingText = (project: string, traceIds: string): string =>
  `INSERT INTO score_rollup_pending (project_id, trace_id) SELECT ${project}, t FROM unnest(${traceIds}) t ON CONFLICT DO NOTHING`;

/** Which of the traces are pending. */
export async function pendingAmong(tx: Tx | CruxDb, projectId: string, traceIds: readonly string[]): Promise<Set<string>> {
  const rows = rowsOf(
    await tx.execute(sql`SELECT trace_id FROM score_rollup_pending WHERE project_id = ${projectId} AND trace_id = ANY(${sql.param([...traceIds])}::text[])`),
  );
  return new Set(rows.map((r) => String(r.trace_id)));
}

export interface PendingFoldResult {
  /** Traces whose cells were appended to the delta tables. */
  folded: number;
  /** Traces still pending after `maxTraces` (more than one run folds). */
  behind: boolean;
}

/**
 * Folds pending traces into the rollups' delta tables, `batchTraces` per transaction, until none is
 * left or `maxTraces` have been folded. Each batch: the oldest-keyed pending rows no other fold holds
 * (SKIP LOCKED, so several workers share the work), the traces' locks (a score write in flight
 * finishes first; the cells are then those of its rows), the rows unlisted and the cells appended,
 * in one transaction.
 */
export async function foldPendingTraces(database: Database, opts: { batchTraces?: number; maxTraces?: number } = {}): Promise<PendingFoldResult> {
  const batchTraces = opts.batchTraces ?? 500;
  const maxTraces = opts.maxTraces ?? 20_000;
  let folded = 0;
  for (;;) {
    const n = await database.db.transaction(async (tx) => {
      const rows = rowsOf(
        await tx.execute(sql`SELECT project_id, trace_id FROM score_rollup_pending ORDER BY project_id, trace_id LIMIT ${batchTraces} FOR UPDATE SKIP LOCKED`),
      );
      if (rows.length === 0) return 0;
      const byProject = new Map<string, string[]>();
      for (const r of rows) {
        const ids = byProject.get(String(r.project_id));
        if (ids) ids.push(String(r.trace_id));
        else byProject.set(String(r.project_id), [String(r.trace_id)]);
      }
      // All of the batch's locks in one global order, as every writer takes them.
      await tx.execute(sql`SELECT ${lockTracesSql(rows.map((r) => [String(r.project_id), String(r.trace_id)] as const))}`);
      for (const [projectId, traceIds] of byProject) {
        await tx.execute(sql`DELETE FROM score_rollup_pending WHERE project_id = ${projectId} AND trace_id = ANY(${sql.param(traceIds)}::text[])`);
        await tx.execute(appendTraceCellsSql(projectId, traceIds, 1));
      }
      return rows.length;
    });
    folded += n;
    if (n < batchTraces) return { folded, behind: false };
    if (folded >= maxTraces) return { folded, behind: true };
  }
}
