/** The filter every metrics query takes: project, window on trace start, service, agent. */
import { sql, type SQL } from "drizzle-orm";

export interface MetricsFilter {
  /** Inclusive lower bound on the trace start (ns since epoch). */
  fromNs: bigint;
  /** Exclusive upper bound on the trace start (ns since epoch). */
  toNs: bigint;
  service?: string | undefined;
  agent?: string | undefined;
}

/** Window and service conditions on a table alias that carries project_id, start_ns, service_name. */
export function windowWhere(alias: string, projectId: string, f: MetricsFilter): SQL {
  const a = sql.raw(alias);
  const parts: SQL[] = [
    sql`${a}.project_id = ${projectId}`,
    sql`${a}.start_ns >= ${f.fromNs.toString()}::bigint`,
    sql`${a}.start_ns < ${f.toNs.toString()}::bigint`,
  ];
  if (f.service !== undefined) parts.push(sql`${a}.service_name = ${f.service}`);
  return sql.join(parts, sql` AND `);
}

/** Conditions on trace_scores `alias`: window, service, and (agent) traces the agent took part in. */
export function traceScopeWhere(alias: string, projectId: string, f: MetricsFilter): SQL {
  const base = windowWhere(alias, projectId, f);
  if (f.agent === undefined) return base;
  const a = sql.raw(alias);
  return sql`${base} AND EXISTS (SELECT 1 FROM trace_agent_usage au
    WHERE au.project_id = ${a}.project_id AND au.trace_id = ${a}.trace_id AND au.agent = ${f.agent})`;
}

/** Conditions on a table with its own agent column (findings, agent usage). */
export function agentRowsWhere(alias: string, projectId: string, f: MetricsFilter): SQL {
  const base = windowWhere(alias, projectId, f);
  return f.agent === undefined ? base : sql`${base} AND ${sql.raw(alias)}.agent = ${f.agent}`;
}
