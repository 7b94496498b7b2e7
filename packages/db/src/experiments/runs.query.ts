/**
 * The runs of an experiment, as core's report reads them: one row per scored
 * trace tagged crux.experiment.id, with its outcome (API override, else the
 * tracer's tag, else the outcome judge's current grade), value inputs, usage,
 * failure modes (code and judge findings) and where its failure started.
 */
import { failureStageOf, type ExperimentRun } from "@crux/core";
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { outcomeJudgeId } from "../judges/findings.ts";

export async function readExperimentRuns(database: Database, projectId: string, experimentId: string): Promise<ExperimentRun[]> {
  const db = database.db;
  const [runs, findings, attributions, roots, handoffs] = await Promise.all([
    db.execute(sql`SELECT s.trace_id, s.variant, s.task_id, s.trial, s.active_agents, s.is_baseline,
        coalesce(s.success, v.outcome_success) AS success, s.milestone_partial_credit, s.milestone_furthest_index,
        s.total_tokens, s.cost_usd, (s.end_ns - s.start_ns)::float8 / 1e6 AS wall_ms
      FROM trace_scores s LEFT JOIN judge_current_verdicts v ON v.project_id = s.project_id AND v.trace_id = s.trace_id
        AND v.producer_id = ${outcomeJudgeId} AND v.status = 'succeeded'
      WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId} ORDER BY s.trace_id`),
    db.execute(sql`SELECT f.trace_id, f.mode, f.agent, f.span_id FROM trace_findings f JOIN trace_scores s USING (project_id, trace_id)
        WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId}
      UNION ALL SELECT j.trace_id, j.mode, j.agent, j.span_id FROM judge_findings j JOIN trace_scores s USING (project_id, trace_id)
        WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId}`),
    db.execute(sql`SELECT DISTINCT ON (a.trace_id) a.trace_id, a.agent, a.span_id FROM trace_attributions a JOIN trace_scores s USING (project_id, trace_id)
      WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId} ORDER BY a.trace_id, a.rank, a.ord`),
    db.execute(sql`SELECT u.trace_id, u.agent FROM trace_agent_usage u JOIN trace_scores s USING (project_id, trace_id)
      WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId} AND u.parent_agent IS NULL`),
    db.execute(sql`SELECT h.trace_id, h.span_id FROM trace_handoffs h JOIN trace_scores s USING (project_id, trace_id)
      WHERE s.project_id = ${projectId} AND s.experiment_id = ${experimentId}`),
  ]);
  const group = <T>(rows: Record<string, unknown>[], f: (r: Record<string, unknown>) => T) => {
    const m = new Map<string, T[]>();
    for (const r of rows) m.set(String(r.trace_id), [...(m.get(String(r.trace_id)) ?? []), f(r)]);
    return m;
  };
  const findingsBy = group(rowsOf(findings), (r) => ({ mode: String(r.mode), agent: (r.agent as string | null) ?? null, spanId: String(r.span_id) }));
  const decisiveBy = new Map(
    rowsOf(attributions).map((r) => [String(r.trace_id), { agent: (r.agent as string | null) ?? null, spanId: (r.span_id as string | null) ?? null }]),
  );
  const rootsBy = group(rowsOf(roots), (r) => String(r.agent));
  const handoffsBy = group(rowsOf(handoffs), (r) => String(r.span_id));
  return rowsOf(runs).map((r) => {
    const traceId = String(r.trace_id);
    const f = findingsBy.get(traceId) ?? [];
    const success = r.success === null ? null : r.success === true;
    return {
      traceId,
      // A run without crux.variant: "baseline" when baseline-tagged, else "default" (the same names getExperiment lists).
      variant: (r.variant as string | null) ?? (r.is_baseline === true ? "baseline" : "default"),
      taskId: (r.task_id as string | null) ?? `trace:${traceId}`,
      trial: r.trial === null ? null : Number(r.trial),
      activeAgents: (r.active_agents as string[] | null) ?? null,
      success,
      partialCredit: r.milestone_partial_credit === null ? null : Number(r.milestone_partial_credit),
      furthestMilestone: r.milestone_furthest_index === null ? null : Number(r.milestone_furthest_index),
      tokens: Number(r.total_tokens),
      costUsd: r.cost_usd === null ? null : Number(r.cost_usd),
      wallMs: Number(r.wall_ms),
      modes: [...new Set(f.map((x) => x.mode))].sort(),
      failureStart:
        success === false
          ? failureStageOf({
              decisive: decisiveBy.get(traceId) ?? null,
              findings: f,
              rootAgents: rootsBy.get(traceId) ?? [],
              handoffSpanIds: handoffsBy.get(traceId) ?? [],
            })
          : null,
    };
  });
}
