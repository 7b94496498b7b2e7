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
import { PermanentError, categoryOf, type MastModeId } from "@crux/core";
import { sql } from "drizzle-orm";
import { rowsOf, type CruxDb } from "../client.ts";
import { lockTraces, pendingAmong } from "../rollups/pending.ts";
import { applyTraceDeltaSql, cellsByName, judgeFindingRollup, type BaseWhere } from "../rollups/rollups.ts";

/** Producer ids of the LLM judges; other producers of trace_verdicts are not materialized. */
const judgeProducerPrefix = "judge.";

/** The parts of a succeeded judge verdict (contracts' JudgeVerdictResult) that are materialized. */
interface JudgeVerdictFacts {
  findings: { mode: MastModeId; agent: string | null; spanId: string; stepIndex: number; evidence: string; explanation: string; confidence: number }[];
  attribution: { method: string; agent: string | null; spanId: string | null; stepIndex: number | null; explanation: string } | null;
  outcome: { success: boolean; score: number | null } | null;
}

/** The judge whose verdict grades a run's outcome when the tracer reported none. */
export const outcomeJudgeId = "judge.outcome-rubric";

/**
 * The modes a judge is asked about, so validation lists (mode, judge) pairs that mean something:
 * the MAST checklist asks one question per mode; handoff preservation asks about dropped
 * constraints (FM-2.4); the decisive-error and outcome judges name no mode (their attribution
 * and outcome are validated apart). A judge id not listed here is taken to ask about every mode.
 */
const judgeModeQuestions: Record<string, readonly string[] | "every mode"> = {
  "judge.mast-checklist": "every mode",
  "judge.handoff-preservation": ["FM-2.4"],
  "judge.decisive-error-all-at-once": [],
  "judge.decisive-error-step-by-step": [],
  "judge.outcome-rubric": [],
};

export function judgeAsksAbout(producerId: string, mode: string): boolean {
  const asks = judgeModeQuestions[producerId] ?? "every mode";
  return asks === "every mode" || asks.includes(mode);
}

/** JudgeFinding's mode pattern (contracts): a mode outside the 14 is kept and listed apart by the rates. */
const judgeModePattern = /^FM-[123]\.[1-6]$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === "string";
const isNullableInt = (v: unknown): v is number | null => v === null || Number.isInteger(v);

/**
 * The verdict's findings, attribution and outcome. The producer validated the result against
 * JudgeVerdictResult before storing it; a result that does not have that shape is refused whole
 * (PermanentError), never stored half-read.
 */
function factsOf(result: unknown): JudgeVerdictFacts {
  const bad = (what: string) => new PermanentError("invalid_verdict", `judge verdict result: ${what}`);
  if (!isRecord(result) || !Array.isArray(result.findings)) throw bad("findings must be an array");
  const findings = result.findings.map((f: unknown, i) => {
    if (
      !isRecord(f) ||
      typeof f.mode !== "string" ||
      !judgeModePattern.test(f.mode) ||
      !isNullableString(f.agent) ||
      typeof f.spanId !== "string" ||
      !Number.isInteger(f.stepIndex) ||
      typeof f.evidence !== "string" ||
      typeof f.explanation !== "string" ||
      typeof f.confidence !== "number"
    ) {
      throw bad(`findings[${i}] is not a JudgeFinding`);
    }
    return f as JudgeVerdictFacts["findings"][number];
  });
  const a = result.attribution ?? null;
  if (
    a !== null &&
    !(
      isRecord(a) &&
      typeof a.method === "string" &&
      isNullableString(a.agent) &&
      isNullableString(a.spanId) &&
      isNullableInt(a.stepIndex) &&
      typeof a.explanation === "string"
    )
  ) {
    throw bad("attribution is not a JudgeAttribution");
  }
  const o = result.outcome ?? null;
  if (o !== null && !(isRecord(o) && typeof o.success === "boolean" && (o.score === null || typeof o.score === "number"))) throw bad("outcome is malformed");
  return { findings, attribution: a as JudgeVerdictFacts["attribution"], outcome: o as JudgeVerdictFacts["outcome"] };
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
  const facts: JudgeVerdictFacts = verdict.status === "succeeded" ? factsOf(verdict.result) : { findings: [], attribution: null, outcome: null };
  const a = facts.attribution;
  const o = facts.outcome;
  const current = rowsOf(
    await tx.execute(sql`INSERT INTO judge_current_verdicts (project_id, trace_id, producer_id, producer_version, input_hash, status, start_ns, service_name,
        outcome_success, outcome_score, attribution_method, attribution_agent, attribution_span_id, attribution_step_index, attribution_explanation, verdict_created_at)
      SELECT ${projectId}, ${traceId}, ${verdict.producerId}, ${verdict.producerVersion}, ${verdict.inputHash}, ${verdict.status}, t.start_ns, t.service_name,
        ${o?.success ?? null}::boolean, ${o?.score ?? null}::float8, ${a?.method ?? null}::text, ${a?.agent ?? null}::text, ${a?.spanId ?? null}::text,
        ${a?.stepIndex ?? null}::int, ${a?.explanation ?? null}::text, ${verdict.createdAt.toISOString()}::timestamptz
      FROM traces t WHERE t.project_id = ${projectId} AND t.trace_id = ${traceId}
      ON CONFLICT (project_id, trace_id, producer_id) DO UPDATE SET
        producer_version = excluded.producer_version, input_hash = excluded.input_hash, status = excluded.status,
        start_ns = excluded.start_ns, service_name = excluded.service_name, outcome_success = excluded.outcome_success,
        outcome_score = excluded.outcome_score, attribution_method = excluded.attribution_method, attribution_agent = excluded.attribution_agent,
        attribution_span_id = excluded.attribution_span_id, attribution_step_index = excluded.attribution_step_index,
        attribution_explanation = excluded.attribution_explanation, verdict_created_at = excluded.verdict_created_at
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
  if (facts.findings.length > 0) await insertFindings(tx, projectId, traceId, verdict.producerId, facts.findings, row);
  if (folded) await tx.execute(applyTraceDeltaSql(judgeFindingRollup, thisTrace, old));
}

async function insertFindings(
  tx: CruxDb,
  projectId: string,
  traceId: string,
  producerId: string,
  findings: JudgeVerdictFacts["findings"],
  row: Record<string, unknown>,
): Promise<void> {
  const values = findings.map(
    (f, ord) =>
      sql`(${projectId}, ${traceId}, ${producerId}, ${ord}, ${f.mode}, ${categoryOf(f.mode)}, ${f.agent}, ${f.spanId}, ${f.stepIndex},
        ${f.confidence}, ${f.evidence}, ${f.explanation}, ${String(row.start_ns)}::bigint, ${row.service_name ?? null}::text)`,
  );
  await tx.execute(sql`INSERT INTO judge_findings (project_id, trace_id, producer_id, ord, mode, category, agent, span_id, step_index,
      confidence, evidence, explanation, start_ns, service_name) VALUES ${sql.join(values, sql`, `)}`);
}
