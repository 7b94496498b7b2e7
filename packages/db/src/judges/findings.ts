/**
 * Materializes a judge's newest verdict on a trace (judge_current_verdicts, judge_findings) so
 * the rates, validation and trace reads join plain rows (schema/judges.ts). Called by
 * insertVerdict in the verdict's own transaction: the tables never disagree with trace_verdicts.
 *
 * "Current" is the newest verdict stored for (trace, judge), whatever its version or input hash:
 * the judge stage only ever runs for the trace's current input hash, so the newest row is the
 * one for the spans as they are now. A failed verdict becomes current too and leaves the judge
 * with no findings on the trace (what it said about earlier spans no longer holds).
 */
import { JudgeVerdictResult, type JudgeFinding, type JudgeKind } from "@crux/contracts";
import { PermanentError, categoryOf, type MastModeId } from "@crux/core";
import { sql } from "drizzle-orm";
import { rowsOf, type CruxDb } from "../client.ts";
import { lockTraces, pendingAmong } from "../rollups/pending.ts";
import { applyTraceDeltaSql, cellsByName, judgeFindingRollup, type BaseWhere } from "../rollups/rollups.ts";

/** Producer ids of the LLM judges; other producers of trace_verdicts are not materialized. */
const judgeProducerPrefix = "judge.";

/** The judge whose verdict grades a run's outcome when the tracer reported none. */
export const outcomeJudgeId = `judge.${"outcome-rubric" satisfies JudgeKind}`;

/**
 * Whether a verdict asked about `mode`: the modes it stored (askedModes, declared by its judge), or
 * every mode for a verdict that does not say (failed, or stored before judges declared them).
 */
export function verdictAsksAbout(askedModes: readonly string[] | null, mode: string): boolean {
  return askedModes === null || askedModes.includes(mode);
}

/**
 * The verdict's result parsed with the contracts' schema (the one declaration of its shape). The
 * producer validated it before storing; a result that does not parse is refused whole
 * (PermanentError), never stored half-read.
 */
function factsOf(result: unknown): JudgeVerdictResult {
  const parsed = JudgeVerdictResult.safeParse(result);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new PermanentError(
    "invalid_verdict",
    `judge verdict result: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "not a JudgeVerdictResult"}`,
  );
}

export interface StoredVerdict {
  producerId: string;
  producerVersion: number;
  inputHash: string;
  status: "succeeded" | "failed";
  result: unknown;
  createdAt: Date;
}

/**
 * Makes `verdict` the judge's current verdict on the trace unless a newer one is current, and
 * replaces the judge's findings on the trace with its own. Runs inside the caller's transaction.
 * A producer that is not a judge, or a trace with no traces row, is left alone.
 */
export async function recordJudgeFindings(tx: CruxDb, projectId: string, traceId: string, verdict: StoredVerdict): Promise<void> {
  if (!verdict.producerId.startsWith(judgeProducerPrefix)) return;
  // The trace's lock first, as every writer of rows the rollups read takes it (rollups/pending.ts).
  await lockTraces(tx, projectId, [traceId]);
  const facts = verdict.status === "succeeded" ? factsOf(verdict.result) : null;
  const a = facts?.attribution ?? null;
  const o = facts?.outcome ?? null;
  const askedModes = facts?.askedModes ?? null;
  const current = rowsOf(
    await tx.execute(sql`INSERT INTO judge_current_verdicts (project_id, trace_id, producer_id, producer_version, input_hash, status, start_ns, service_name,
        outcome_success, outcome_score, attribution_method, attribution_agent, attribution_span_id, attribution_step_index, attribution_explanation, asked_modes, verdict_created_at)
      SELECT ${projectId}, ${traceId}, ${verdict.producerId}, ${verdict.producerVersion}, ${verdict.inputHash}, ${verdict.status}, t.start_ns, t.service_name,
        ${o?.success ?? null}::boolean, ${o?.score ?? null}::float8, ${a?.method ?? null}::text, ${a?.agent ?? null}::text, ${a?.spanId ?? null}::text,
        ${a?.stepIndex ?? null}::int, ${a?.explanation ?? null}::text, ${askedModes === null ? null : sql.param(askedModes)}::text[], ${verdict.createdAt.toISOString()}::timestamptz
      FROM traces t WHERE t.project_id = ${projectId} AND t.trace_id = ${traceId}
      ON CONFLICT (project_id, trace_id, producer_id) DO UPDATE SET
        producer_version = excluded.producer_version, input_hash = excluded.input_hash, status = excluded.status,
        start_ns = excluded.start_ns, service_name = excluded.service_name, outcome_success = excluded.outcome_success,
        outcome_score = excluded.outcome_score, attribution_method = excluded.attribution_method, attribution_agent = excluded.attribution_agent,
        attribution_span_id = excluded.attribution_span_id, attribution_step_index = excluded.attribution_step_index,
        attribution_explanation = excluded.attribution_explanation, asked_modes = excluded.asked_modes, verdict_created_at = excluded.verdict_created_at
      WHERE judge_current_verdicts.verdict_created_at <= excluded.verdict_created_at
      RETURNING start_ns, service_name`),
  );
  const row = current[0];
  if (row === undefined) return; // a newer verdict is current, or the trace has no spans
  // Under the trace's lock: a trace pending in the rollups gets no delta (the fold counts its findings); one already
  // folded gets its new judge cells minus its old ones.
  const folded = !(await pendingAmong(tx, projectId, [traceId])).has(traceId);
  const thisTrace: BaseWhere = (a) => sql`${sql.raw(a)}.project_id = ${projectId} AND ${sql.raw(a)}.trace_id = ${traceId}`;
  const old = folded ? rowsOf(await tx.execute(cellsByName(judgeFindingRollup, thisTrace))) : [];
  await tx.execute(sql`DELETE FROM judge_findings WHERE project_id = ${projectId} AND trace_id = ${traceId} AND producer_id = ${verdict.producerId}`);
  if (facts !== null && facts.findings.length > 0) await insertFindings(tx, projectId, traceId, verdict.producerId, facts.findings, row);
  if (folded) await tx.execute(applyTraceDeltaSql(judgeFindingRollup, thisTrace, old));
}

async function insertFindings(
  tx: CruxDb,
  projectId: string,
  traceId: string,
  producerId: string,
  findings: readonly JudgeFinding[],
  row: Record<string, unknown>,
): Promise<void> {
  const values = findings.map(
    (f, ord) =>
      sql`(${projectId}, ${traceId}, ${producerId}, ${ord}, ${f.mode}, ${categoryOf(f.mode as MastModeId)}, ${f.agent}, ${f.spanId}, ${f.stepIndex},
        ${f.confidence}, ${f.evidence}, ${f.explanation}, ${String(row.start_ns)}::bigint, ${row.service_name ?? null}::text)`,
  );
  await tx.execute(sql`INSERT INTO judge_findings (project_id, trace_id, producer_id, ord, mode, category, agent, span_id, step_index,
      confidence, evidence, explanation, start_ns, service_name) VALUES ${sql.join(values, sql`, `)}`);
}
