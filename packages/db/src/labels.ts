/** trace_labels: a person's labels of a trace (one row per trace, replaced whole by each PUT). */
import { and, eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "./client.ts";
import { traceLabels } from "./schema.ts";

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

/** Replaces the trace's labels; null when the trace is unknown (no spans stored). */
export async function putTraceLabels(database: Database, projectId: string, traceId: string, labels: TraceLabelsInput): Promise<StoredTraceLabels | null> {
  const rows = rowsOf(
    await database.db
      .execute(sql`INSERT INTO trace_labels (project_id, trace_id, modes, decisive_agent, decisive_span_id, decisive_step_index, note, labeller, updated_at)
      SELECT t.project_id, t.trace_id, ${JSON.stringify(labels.modes)}::jsonb, ${labels.decisiveAgent}::text, ${labels.decisiveSpanId}::text,
        ${labels.decisiveStepIndex}::int, ${labels.note}::text, ${labels.labeller}, now()
      FROM traces t WHERE t.project_id = ${projectId} AND t.trace_id = ${traceId}
      ON CONFLICT (project_id, trace_id) DO UPDATE SET modes = excluded.modes, decisive_agent = excluded.decisive_agent,
        decisive_span_id = excluded.decisive_span_id, decisive_step_index = excluded.decisive_step_index, note = excluded.note,
        labeller = excluded.labeller, updated_at = excluded.updated_at
      RETURNING updated_at`),
  );
  const row = rows[0];
  if (row === undefined) return null;
  const at = row.updated_at;
  return { ...labels, updatedAt: at instanceof Date ? at : new Date(String(at)) };
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
