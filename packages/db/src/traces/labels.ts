/**
 * trace_labels: a person's labels of a trace (one row per trace, replaced whole by each PUT);
 * trace_label_history: every version a PUT replaced, so relabelling loses nothing.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { traceLabelHistory, traceLabels } from "../schema/traces.ts";

export interface TraceLabelsInput {
  /** Only the modes the person labelled: true present, false absent. */
  modes: Record<string, boolean>;
  decisiveAgent: string | null;
  decisiveSpanId: string | null;
  decisiveStepIndex: number | null;
  note: string | null;
  labeller: string;
}

export interface StoredTraceLabels extends TraceLabelsInput {
  updatedAt: Date;
}

export interface ReplacedTraceLabels extends StoredTraceLabels {
  replacedAt: Date;
}

/** What a label names that the trace does not have, or the trace not found / not yet scored. */
export type LabelTargetCheck = { ok: true } | { ok: false; problem: "trace_not_found" | "not_scored" | "unknown_target"; message: string };

/**
 * Checks the decisive agent, span and step of a label against the trace: the agent must act in it
 * (an agent of its trajectories or of a span), the span must be one of its spans, the step index
 * one of its steps (known once the trace is scored) and, with both given, the step must be that span.
 */
export async function checkLabelTargets(
  database: Database,
  projectId: string,
  traceId: string,
  decisive: Pick<TraceLabelsInput, "decisiveAgent" | "decisiveSpanId" | "decisiveStepIndex">,
): Promise<LabelTargetCheck> {
  const { decisiveAgent: agent, decisiveSpanId: spanId, decisiveStepIndex: stepIndex } = decisive;
  const [row] = rowsOf(
    await database.db.execute(sql`SELECT
      EXISTS (SELECT 1 FROM traces WHERE project_id = ${projectId} AND trace_id = ${traceId}) AS trace,
      EXISTS (SELECT 1 FROM trace_scores WHERE project_id = ${projectId} AND trace_id = ${traceId}) AS scored,
      ${agent}::text IS NULL
        OR EXISTS (SELECT 1 FROM trace_trajectories WHERE project_id = ${projectId} AND trace_id = ${traceId} AND agent = ${agent}::text)
        OR EXISTS (SELECT 1 FROM spans WHERE project_id = ${projectId} AND trace_id = ${traceId} AND agent_name = ${agent}::text) AS agent_known,
      ${spanId}::text IS NULL
        OR EXISTS (SELECT 1 FROM spans WHERE project_id = ${projectId} AND trace_id = ${traceId} AND span_id = ${spanId}::text) AS span_known,
      (SELECT e.step ->> 'spanId' FROM trace_trajectories tt CROSS JOIN LATERAL jsonb_array_elements(tt.steps) AS e(step)
        WHERE tt.project_id = ${projectId} AND tt.trace_id = ${traceId} AND (e.step ->> 'index')::int = ${stepIndex}::int LIMIT 1) AS step_span`),
  );
  if (row?.trace !== true) return { ok: false, problem: "trace_not_found", message: `trace ${traceId} not found` };
  const unknown: string[] = [];
  if (row.agent_known !== true) unknown.push(`agent '${agent}' does not act in trace ${traceId}`);
  if (row.span_known !== true) unknown.push(`span ${spanId} is not a span of trace ${traceId}`);
  if (stepIndex !== null) {
    if (row.scored !== true) {
      return { ok: false, problem: "not_scored", message: `trace ${traceId} is not scored yet: its steps are numbered when it is; label the step then` };
    }
    const stepSpan = row.step_span;
    if (stepSpan === null || stepSpan === undefined) unknown.push(`step ${stepIndex} is not a step of trace ${traceId}`);
    else if (spanId !== null && row.span_known === true && stepSpan !== spanId) {
      unknown.push(`step ${stepIndex} is span ${String(stepSpan)}, not span ${spanId}`);
    }
  }
  return unknown.length === 0
    ? { ok: true }
    : { ok: false, problem: "unknown_target", message: `the labels name what the trace does not have: ${unknown.join("; ")}` };
}

/**
 * Replaces the trace's labels and moves the version it replaces to trace_label_history, in one
 * transaction. The current row is copied under a row lock first, so of two PUTs at once the second
 * waits and keeps the first one's version. Null when the trace is unknown (no spans stored).
 */
export async function putTraceLabels(database: Database, projectId: string, traceId: string, labels: TraceLabelsInput): Promise<StoredTraceLabels | null> {
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`INSERT INTO trace_label_history (project_id, trace_id, modes, decisive_agent, decisive_span_id, decisive_step_index, note, labeller, updated_at)
      SELECT project_id, trace_id, modes, decisive_agent, decisive_span_id, decisive_step_index, note, labeller, updated_at
      FROM trace_labels WHERE project_id = ${projectId} AND trace_id = ${traceId} FOR UPDATE
      ON CONFLICT DO NOTHING`);
    const [row] = rowsOf(
      await tx.execute(sql`INSERT INTO trace_labels (project_id, trace_id, modes, decisive_agent, decisive_span_id, decisive_step_index, note, labeller, updated_at)
        SELECT t.project_id, t.trace_id, ${JSON.stringify(labels.modes)}::jsonb, ${labels.decisiveAgent}::text, ${labels.decisiveSpanId}::text,
          ${labels.decisiveStepIndex}::int, ${labels.note}::text, ${labels.labeller}, now()
        FROM traces t WHERE t.project_id = ${projectId} AND t.trace_id = ${traceId}
        ON CONFLICT (project_id, trace_id) DO UPDATE SET modes = excluded.modes, decisive_agent = excluded.decisive_agent,
          decisive_span_id = excluded.decisive_span_id, decisive_step_index = excluded.decisive_step_index, note = excluded.note,
          labeller = excluded.labeller, updated_at = excluded.updated_at
        RETURNING updated_at`),
    );
    return row === undefined ? null : { ...labels, updatedAt: asDate(row.updated_at) };
  });
}

export async function getTraceLabels(database: Database, projectId: string, traceId: string): Promise<StoredTraceLabels | null> {
  const [row] = await database.db
    .select()
    .from(traceLabels)
    .where(and(eq(traceLabels.projectId, projectId), eq(traceLabels.traceId, traceId)))
    .limit(1);
  if (!row) return null;
  return {
    modes: row.modes as Record<string, boolean>,
    decisiveAgent: row.decisiveAgent,
    decisiveSpanId: row.decisiveSpanId,
    decisiveStepIndex: row.decisiveStepIndex,
    note: row.note,
    labeller: row.labeller,
    updatedAt: row.updatedAt,
  };
}

/** The versions of a trace's labels that later PUTs replaced, newest first. */
export async function listTraceLabelHistory(database: Database, projectId: string, traceId: string): Promise<ReplacedTraceLabels[]> {
  const rows = await database.db
    .select()
    .from(traceLabelHistory)
    .where(and(eq(traceLabelHistory.projectId, projectId), eq(traceLabelHistory.traceId, traceId)))
    .orderBy(desc(traceLabelHistory.updatedAt));
  return rows.map((row) => ({
    modes: row.modes as Record<string, boolean>,
    decisiveAgent: row.decisiveAgent,
    decisiveSpanId: row.decisiveSpanId,
    decisiveStepIndex: row.decisiveStepIndex,
    note: row.note,
    labeller: row.labeller,
    updatedAt: row.updatedAt,
    replacedAt: row.replacedAt,
  }));
}

function asDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}
