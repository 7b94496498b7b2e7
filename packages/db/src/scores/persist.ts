/**
 * persistTraceScores / persistTraceScoreSets: replace a trace's whole score set
 * (or several traces' sets) in one transaction. Transaction-scoped advisory
 * locks on the traces (lockTraces), taken first in one global order, serialize two writers of the
 * same trace, so the second one's deletes see the first one's rows (no
 * primary-key clash) and readers see the old set or the new set, never a mix;
 * under them a record older than the stored one (lower version) is ignored.
 * The set is stamped with the hash of the inputs it was computed from (the score
 * stage's scoreInputHash; null = unknown, so the next score job recomputes it).
 * The rollups are not computed here: the traces are listed as pending and the
 * scheduled compaction folds them in batches (rollups/pending.ts); a trace already
 * folded has its old cells taken out first (appended negated to the delta tables).
 */
import type { TraceScoreRecord } from "@crux/core";
import { sql } from "drizzle-orm";
import { queryRows, rowsOf, type Database, type FixedStatement } from "../client.ts";
import { appendTraceCellsSql, lockTracesText, markPendingText, traceLockKey } from "../rollups/pending.ts";
import { agentColumns, attributionColumns, findingColumns, handoffColumns, summaryValues, trajectoryColumns, type Col } from "./score-set-rows.ts";

/** The score set's child tables and their rows per record. */
const childInserts: [table: string, columnsOf: (r: TraceScoreRecord) => Col[]][] = [
  ["trace_findings", findingColumns],
  ["trace_agent_usage", agentColumns],
  ["trace_attributions", attributionColumns],
  ["trace_handoffs", handoffColumns],
  ["trace_trajectories", trajectoryColumns],
];

export interface PersistOptions {
  /** scoreInputHash of the inputs; null = unknown, so the next score job recomputes it. */
  inputHash?: string | null;
  /** The trace's agent list (traces.agents), written with the set. */
  agents?: readonly string[];
  /** Clears traces.score_requested_at if it still equals this (compare-and-set), with the set. */
  clearScoreRequest?: Date | null;
}

/** One trace's score set and what goes with it. */
export interface ScoreSetWrite {
  record: TraceScoreRecord;
  opts?: PersistOptions;
}

/** Returns whether the set was written (false: a newer version is stored). */
export async function persistTraceScores(database: Database, projectId: string, record: TraceScoreRecord, opts: PersistOptions = {}): Promise<boolean> {
  const [written] = await persistTraceScoreSets(database, projectId, [{ record, opts }]);
  return written === true;
}

/**
 * Several traces' sets in one transaction (the worker groups the sets its concurrent jobs finish),
 * each exactly as persistTraceScores would write it alone; one set per trace. Statements: the
 * trace locks (one global order); the stored versions and whether they are pending in the rollups;
 * the old cells of re-scored traces already folded, negated (rare); the summary upserts with the
 * re-scored traces' children deleted, the traces rows' agents and score requests and the pending
 * listing; every child insert. Returns per set whether it was written.
 *
 * These run on the hot path of every scored trace, so their text is written here with numbered
 * parameters, one array per column (unnest), instead of built by drizzle's SQL builder (about
 * 1 ms of worker CPU per trace); they run unnamed, planned with their values.
 */
export async function persistTraceScoreSets(database: Database, projectId: string, sets: readonly ScoreSetWrite[]): Promise<boolean[]> {
  if (sets.length === 0) return [];
  const ids = sets.map((s) => s.record.traceId);
  if (new Set(ids).size !== ids.length) throw new Error("persistTraceScoreSets: one set per trace");
  return database.db.transaction(async (tx) => {
    const onTx = { ...database, db: tx } as Database;
    // Derived data: the commit does not wait for the WAL flush (the trace locks would be held through it). A crash
    // can lose the last fraction of a second of score sets, always whole with their score-request clear, so those
    // traces keep their request and the sweeper scores them again (docs/architecture.md §6).
    await queryRows(onTx, {
      text: `SELECT set_config('synchronous_commit', 'off', true), ${lockTracesText(1)}`,
      values: [ids.map((id) => traceLockKey(projectId, id))],
    });
    // Under the locks (a statement of its own: a statement's snapshot predates the locks it takes): a stored set of a
    // higher version wins (the set is ignored); a stored set already folded into the rollups is taken out of them.
    const storedRows = await queryRows(onTx, { text: storedText, values: [projectId, ids] });
    const stored = new Map(storedRows.map(([traceId, version, pending]) => [String(traceId), { version: Number(version), pending: pending === true }]));
    const kept = sets.filter((s) => (stored.get(s.record.traceId)?.version ?? -Infinity) <= s.record.version);
    if (kept.length === 0) return sets.map(() => false);
    const keptIds = kept.map((s) => s.record.traceId);
    const folded = keptIds.filter((id) => stored.get(id)?.pending === false);
    // Before the rows change: the old cells, negated. (Rare: only a re-score of a trace already folded.)
    if (folded.length > 0) await tx.execute(appendTraceCellsSql(projectId, folded, -1));
    // Child rows exist only for traces scored before (this function writes them, with their set): only theirs are deleted.
    await queryRows(
      onTx,
      summariesStatement(
        projectId,
        kept,
        keptIds.filter((id) => stored.has(id)),
      ),
    );
    const children = childInsertsStatement(
      projectId,
      kept.map((s) => s.record),
    );
    if (children !== null) await queryRows(onTx, children);
    const written = new Set(keptIds);
    return sets.map((s) => written.has(s.record.traceId));
  });
}

const storedText = `SELECT s.trace_id, s.version,
    EXISTS (SELECT 1 FROM score_rollup_pending p WHERE p.project_id = s.project_id AND p.trace_id = s.trace_id)
  FROM trace_scores s WHERE s.project_id = $1 AND s.trace_id = ANY($2::text[])`;

/** A statement's values, each added as the next $n. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

/** `unnest($a::t1[], $b::t2[], ...) AS u(c1, c2, ...)` and the select list of its columns (jsonb cast back from text). */
function unnestColumns(p: Params, columns: readonly Col[]): { from: string; select: string } {
  const arrays = columns.map((c) => p.add(c.values, `${c.type === "jsonb" ? "text" : c.type}[]`));
  return {
    from: `unnest(${arrays.join(", ")}) AS u(${columns.map((c) => c.name).join(", ")})`,
    select: columns.map((c) => (c.type === "jsonb" ? `u.${c.name}::jsonb` : `u.${c.name}`)).join(", "),
  };
}

/** The summaries' upsert, the deletes of re-scored traces' children, the traces rows' agents and score requests and the pending listing, in one statement. */
function summariesStatement(projectId: string, sets: readonly ScoreSetWrite[], rescored: readonly string[]): FixedStatement {
  const p = new Params();
  const project = p.add(projectId, "text");
  const traceIds = p.add(
    sets.map((s) => s.record.traceId),
    "text[]",
  );
  const perSet = sets.map(({ record, opts }) => summaryValues(record, opts?.inputHash ?? null));
  const columns: Col[] = [
    { name: "trace_id", type: "text", values: sets.map((s) => s.record.traceId) },
    ...perSet[0]!.map(([name, , type]: [string, unknown, string], j: number) => ({ name, type, values: perSet.map((row) => row[j]![1]) })),
  ];
  const { from, select } = unnestColumns(p, columns);
  // unpriced_models is a text[] column: its lists travel as JSON text, one per row.
  const selectList = select.replace("u.unpriced_models::jsonb", "ARRAY(SELECT jsonb_array_elements_text(u.unpriced_models::jsonb))");
  const names = columns.slice(1).map((c) => c.name);
  const ctes = [
    // An experiment or replay run stays out of production metrics unless the project opts in (docs/experiments.md §2).
    `up AS (INSERT INTO trace_scores AS s (project_id, trace_id, ${names.join(", ")}, metrics_excluded, scored_at)
      SELECT ${project}, ${selectList}, (u.experiment_id IS NOT NULL OR u.replay_id IS NOT NULL)
        AND NOT coalesce((SELECT es.include_in_metrics FROM experiment_settings es WHERE es.project_id = ${project}), false), now() FROM ${from}
      ON CONFLICT (project_id, trace_id) DO UPDATE SET ${names.map((n) => `${n} = excluded.${n}`).join(", ")}, metrics_excluded = excluded.metrics_excluded, scored_at = now()
      WHERE s.version <= excluded.version)`,
  ];
  if (rescored.length > 0) {
    const again = p.add([...rescored], "text[]");
    childInserts.forEach(([table], i) => ctes.push(`d${i} AS (DELETE FROM ${table} WHERE project_id = ${project} AND trace_id = ANY(${again}))`));
  }
  const traceRows = sets
    .filter((s) => s.opts?.agents !== undefined || s.opts?.clearScoreRequest)
    .map((s) => ({ trace_id: s.record.traceId, agents: s.opts?.agents ?? null, clear: s.opts?.clearScoreRequest?.toISOString() ?? null }));
  if (traceRows.length > 0)
    ctes.push(`t AS (UPDATE traces tr SET
        agents = CASE WHEN r.agents IS NULL THEN tr.agents ELSE ARRAY(SELECT jsonb_array_elements_text(r.agents)) END,
        score_requested_at = CASE WHEN tr.score_requested_at = r.clear THEN NULL ELSE tr.score_requested_at END
      FROM jsonb_to_recordset(${p.add(JSON.stringify(traceRows), "jsonb")}) AS r(trace_id text, agents jsonb, clear timestamptz)
      WHERE tr.project_id = ${project} AND tr.trace_id = r.trace_id)`);
  // Listed as pending: the compaction folds their cells into the rollups (rollups/pending.ts).
  ctes.push(`pend AS (${markPendingText(project, traceIds)})`);
  return { text: `WITH ${ctes.join(",\n")} SELECT 1`, values: p.values };
}

/** Every child table's rows of the records (INSERT ... SELECT FROM unnest, with their trace ids), in one statement; null when there is none. */
function childInsertsStatement(projectId: string, records: readonly TraceScoreRecord[]): FixedStatement | null {
  const p = new Params();
  const project = p.add(projectId, "text");
  const ctes: string[] = [];
  for (const [table, columnsOf] of childInserts) {
    const perRecord = records.map(columnsOf);
    const rowCounts = perRecord.map((cols) => cols[0]?.values.length ?? 0);
    if (rowCounts.every((n) => n === 0)) continue;
    const columns: Col[] = [
      { name: "trace_id", type: "text", values: records.flatMap((r, i) => Array<string>(rowCounts[i]!).fill(r.traceId)) },
      ...perRecord[0]!.map((c, j) => ({ name: c.name, type: c.type, values: perRecord.flatMap((cols) => cols[j]!.values) })),
    ];
    const { from, select } = unnestColumns(p, columns);
    ctes.push(`i${ctes.length} AS (INSERT INTO ${table} (project_id, ${columns.map((c) => c.name).join(", ")}) SELECT ${project}, ${select} FROM ${from})`);
  }
  // Different tables, none read by another: one statement.
  return ctes.length === 0 ? null : { text: `WITH ${ctes.join(",\n")} SELECT 1`, values: p.values };
}

/** What the score stage compares before scoring: the stored set's input hash, and the task id it resolved (which picks config and baseline). */
export async function getStoredScoreInputs(
  database: Database,
  projectId: string,
  traceId: string,
): Promise<{ version: number; inputHash: string | null; taskId: string | null } | null> {
  const rows = rowsOf(
    await database.db.execute(sql`
      SELECT version, input_hash, task_id FROM trace_scores WHERE project_id = ${projectId} AND trace_id = ${traceId}`),
  );
  const row = rows[0] as { version: number; input_hash: string | null; task_id: string | null } | undefined;
  return row ? { version: Number(row.version), inputHash: row.input_hash, taskId: row.task_id } : null;
}
