/**
 * The rows a metrics query aggregates: rollup cells (stored, plus the delta rows
 * not yet folded into them) for the whole hours of the window, plus cells computed
 * on the fly (the same `cells` SELECT) from the base rows of the traces not folded
 * into the rollups yet (rollups/pending.ts) in those hours, and of every trace in the
 * partial hours at either edge. Queries then aggregate these cells exactly as they
 * would the stored ones.
 */
import { sql, type SQL } from "drizzle-orm";
import { traceScopeWhere, windowWhere, type MetricsFilter } from "./filter.ts";
import { pendingTracesOf } from "../rollups/pending.ts";
import { cellsByName, deltaTableOf, hourNs, rollupColumnNames, type BaseWhere, type Rollup } from "../rollups/rollups.ts";

const floorTo = (v: bigint, step: bigint): bigint => v - (((v % step) + step) % step);

/** [first, end) of the whole hours inside [fromNs, toNs), or null when there is none. */
function wholeHours(f: MetricsFilter): [bigint, bigint] | null {
  const first = -floorTo(-f.fromNs, hourNs); // ceiling
  const end = floorTo(f.toNs, hourNs);
  return first < end ? [first, end] : null;
}

/**
 * A parenthesized relation with the rollup's columns covering the window and
 * service of `filter` (an agent filter is left to the caller, except with
 * `traceScoped`: the cells then come from the base rows of the traces the agent
 * took part in, because trace-level rollups are not kept per agent).
 */
export function rollupRows(r: Rollup, projectId: string, f: MetricsFilter, opts: { traceScoped?: boolean } = {}): SQL {
  if (opts.traceScoped === true && f.agent !== undefined) return sql`(${cellsByName(r, (a) => traceScopeWhere(a, projectId, f))})`;
  const whole = wholeHours(f);
  const unscoped = { fromNs: f.fromNs, toNs: f.toNs, service: f.service };
  if (whole === null) return sql`(${cellsByName(r, (a) => windowWhere(a, projectId, unscoped))})`;
  const [first, end] = whole;
  const service = (a: string) => (f.service === undefined ? sql`` : sql` AND ${sql.raw(a)}.service_name = ${f.service}`);
  const edges: BaseWhere = (a) => {
    const x = sql.raw(a);
    return sql`${x}.project_id = ${projectId} AND ((${x}.start_ns >= ${f.fromNs.toString()}::bigint AND ${x}.start_ns < ${first.toString()}::bigint)
      OR (${x}.start_ns >= ${end.toString()}::bigint AND ${x}.start_ns < ${f.toNs.toString()}::bigint))${service(a)}`;
  };
  // The stored cells, the delta rows not folded into them yet and the traces not folded at all (rollups/compaction.ts): summed, they are the cells.
  const stored = (table: string) => sql`SELECT ${sql.raw(rollupColumnNames(r).join(", "))} FROM ${sql.identifier(table)} c
    WHERE c.project_id = ${projectId} AND c.hour_ns >= ${first.toString()}::bigint AND c.hour_ns < ${end.toString()}::bigint${service("c")}`;
  const pending: BaseWhere = (a) =>
    sql`${pendingTracesOf(projectId)(a)} AND ${sql.raw(a)}.start_ns >= ${first.toString()}::bigint AND ${sql.raw(a)}.start_ns < ${end.toString()}::bigint${service(a)}`;
  return sql`(${stored(r.table)} UNION ALL ${stored(deltaTableOf(r))} UNION ALL ${cellsByName(r, pending)} UNION ALL ${cellsByName(r, edges)})`;
}

/** `alias.agent` condition: the given agent, or (findings) the all-agents cells. */
export function agentScope(alias: string, agent: string | undefined): SQL {
  return agent === undefined ? sql`${sql.raw(alias)}.agent IS NULL` : sql`${sql.raw(alias)}.agent = ${agent}`;
}
