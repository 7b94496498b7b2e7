/**
 * Per-trace reads of the judges' current verdicts next to the code results: findings of both
 * sources in one paginated list, and the judges' decisive-error picks (findings.ts).
 */
import { PermanentError } from "@crux/core";
import { and, asc, eq, gt, isNotNull, or } from "drizzle-orm";
import type { Database } from "../client.ts";
import { judgeCurrentVerdicts, judgeFindings } from "../schema/judges.ts";
import { listTraceFindings } from "../scores/trace-reads.ts";
import { clampLimit, decodeCursor, encodeCursor } from "../sql/util.ts";

/** A finding of either source: code findings keep their source (heuristic, contract); a judge's say `judge` and name it. */
export interface TraceFindingItem {
  mode: string;
  category: string;
  agent: string | null;
  spanId: string;
  stepIndex: number | null;
  source: string;
  confidence: number;
  evidence: string;
  /** The code detector's id (packages/core/src/mast/registry.ts); null for a judge finding, and for a code finding stored before findings named it (of a mode several detectors report). */
  detector: string | null;
  /** The judge's producer id (`judge.<kind>`); null for a code finding. */
  judge: string | null;
  /** The judge's explanation; null for a code finding. */
  explanation: string | null;
}

/** The fields code and judge findings share, plus what tells them apart. */
function findingItem(
  f: Pick<TraceFindingItem, "mode" | "category" | "agent" | "spanId" | "stepIndex" | "confidence" | "evidence">,
  origin: Pick<TraceFindingItem, "source" | "detector" | "judge" | "explanation">,
): TraceFindingItem {
  return {
    mode: f.mode,
    category: f.category,
    agent: f.agent,
    spanId: f.spanId,
    stepIndex: f.stepIndex,
    confidence: f.confidence,
    evidence: f.evidence,
    ...origin,
  };
}

type FindingCursor = { phase: "code"; ord: number } | { phase: "judge"; producer: string; ord: number };

function invalidCursor(): PermanentError {
  return new PermanentError("invalid_cursor", "cursor is not one this API returned");
}

/** Code positions are [ord] (as before judges existed), judge positions [producer id, ord]. */
function decodeFindingCursor(cursor: string): FindingCursor {
  let key: (string | number | null)[];
  try {
    key = decodeCursor(cursor, 1);
  } catch {
    key = decodeCursor(cursor, 2);
  }
  const ord = key[key.length - 1];
  if (typeof ord !== "number" || !Number.isInteger(ord) || ord < -2_147_483_648 || ord > 2_147_483_647) throw invalidCursor();
  if (key.length === 1) return { phase: "code", ord };
  if (typeof key[0] !== "string") throw invalidCursor();
  return { phase: "judge", producer: key[0], ord };
}

/** The code findings in their stored order, then each judge's (by judge id, then its order); keyset-paginated. */
export async function listTraceFindingsWithJudges(
  database: Database,
  projectId: string,
  traceId: string,
  opts: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: TraceFindingItem[]; nextCursor: string | null }> {
  const limit = clampLimit(opts.limit);
  const at = opts.cursor === undefined ? null : decodeFindingCursor(opts.cursor);
  const rows: { item: TraceFindingItem; key: (string | number)[] }[] = [];
  if (at === null || at.phase === "code") {
    // listTraceFindings pages code findings by [ord]; ask for one more than needed to know if the page ends.
    const code = await listTraceFindings(database, projectId, traceId, {
      cursor: at === null ? undefined : encodeCursor([at.ord]),
      limit: limit + 1,
    });
    for (const f of code.items) {
      rows.push({
        item: findingItem(f, { source: f.source, detector: f.detector, judge: null, explanation: null }),
        key: [f.ord],
      });
    }
  }
  if (rows.length <= limit) {
    const after = at?.phase === "judge" ? at : null;
    const judged = await database.db
      .select()
      .from(judgeFindings)
      .where(
        and(
          eq(judgeFindings.projectId, projectId),
          eq(judgeFindings.traceId, traceId),
          after === null
            ? undefined
            : or(gt(judgeFindings.producerId, after.producer), and(eq(judgeFindings.producerId, after.producer), gt(judgeFindings.ord, after.ord))),
        ),
      )
      .orderBy(asc(judgeFindings.producerId), asc(judgeFindings.ord))
      .limit(limit + 1 - rows.length);
    for (const f of judged) {
      rows.push({
        item: findingItem(f, { source: "judge", detector: null, judge: f.producerId, explanation: f.explanation }),
        key: [f.producerId, f.ord],
      });
    }
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page.map((r) => r.item), nextCursor: rows.length > limit && last ? encodeCursor(last.key) : null };
}

export interface JudgeAttributionRow {
  /** The judge's producer id. */
  judge: string;
  method: string;
  agent: string | null;
  spanId: string | null;
  stepIndex: number | null;
  explanation: string;
}

/** The decisive-error picks of the judges' current verdicts on the trace, by judge id. */
export async function listJudgeAttributions(database: Database, projectId: string, traceId: string): Promise<JudgeAttributionRow[]> {
  const rows = await database.db
    .select()
    .from(judgeCurrentVerdicts)
    .where(
      and(
        eq(judgeCurrentVerdicts.projectId, projectId),
        eq(judgeCurrentVerdicts.traceId, traceId),
        eq(judgeCurrentVerdicts.status, "succeeded"),
        isNotNull(judgeCurrentVerdicts.attributionMethod),
      ),
    )
    .orderBy(asc(judgeCurrentVerdicts.producerId));
  return rows.map((r) => ({
    judge: r.producerId,
    method: r.attributionMethod ?? "",
    agent: r.attributionAgent,
    spanId: r.attributionSpanId,
    stepIndex: r.attributionStepIndex,
    explanation: r.attributionExplanation ?? "",
  }));
}
