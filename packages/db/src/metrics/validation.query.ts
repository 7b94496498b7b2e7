/**
 * Agreement of Crux's raters with human labels (GET /api/v1/validation; docs/metrics.md §12):
 * per mode and source (the code detectors of the mode together, each of them alone, each judge) the
 * 2×2 table, Cohen's kappa, precision, recall and n; per attribution method the agent- and step-level
 * accuracy. Labels are few (a person wrote each), so they are read whole and the statistics computed by core.
 *
 * What each rater said is its current output: the stored code findings and rank-1 attribution of
 * the trace's score set; the judge's current verdict (judges/findings.ts). A trace a rater has not
 * seen (not scored, not judged, or a judge verdict that failed) is left out of that rater's n; so is,
 * for one detector, a trace whose stored findings of the mode do not say which detector produced them
 * (scored before findings named it): it counts in the mode's aggregate code row only.
 */
import { binaryAgreement, mastDetectors, mastModeIds, ratioOrNull, validationVerdict, type BinaryAgreement, type ValidationBar } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { readReplayAttributions } from "../experiments/replays.repository.ts";
import { verdictAsksAbout } from "../judges/findings.ts";

export interface ValidationScope {
  /** Window on the trace start; both unset: every label of the project. */
  fromNs?: bigint | undefined;
  toNs?: bigint | undefined;
  service?: string | undefined;
}

export interface ModeAgreement extends BinaryAgreement {
  mode: string;
  /** "code" (every detector of the mode: any code finding of it counts), `code.<detectorId>` (that detector alone) or the judge's producer id. */
  source: string;
  kind: "code" | "judge";
  /** For code: the detector ids the row measures (packages/core/src/mast/registry.ts): all that report the mode, or the one. */
  detectors: string[];
  validated: boolean;
  reason: string | null;
}

export interface PickAccuracy {
  n: number;
  correct: number;
  accuracy: number | null;
}

export interface AttributionAccuracy {
  /** "code" (rank 1 of the stored attribution), "replay" (the trace's counterfactual replay), "all-at-once" or "step-by-step". */
  method: string;
  /** "code", "replay" or the judge's producer id. */
  source: string;
  agent: PickAccuracy;
  step: PickAccuracy;
  /** Labelled traces (with a decisive agent or step) on which this method named nothing. */
  unanswered: number;
}

export interface ValidationResult {
  labelledTraces: number;
  bar: ValidationBar;
  modes: ModeAgreement[];
  attribution: AttributionAccuracy[];
}

interface LabelledTrace {
  traceId: string;
  modes: Record<string, boolean>;
  agent: string | null;
  spanId: string | null;
  stepIndex: number | null;
  scored: boolean;
  /** Per mode with a stored code finding, the detectors of its findings (null: a finding stored before findings named it). */
  codeFindings: Map<string, Set<string | null>>;
  code: { agent: string | null; spanId: string | null; stepIndex: number | null } | null;
}

interface JudgeView {
  producerId: string;
  succeeded: boolean;
  /** The modes the verdict asked about; null: it does not say (read as every mode). */
  askedModes: string[] | null;
  modes: Set<string>;
  attribution: { method: string; agent: string | null; spanId: string | null; stepIndex: number | null } | null;
}

function scopeWhere(projectId: string, s: ValidationScope): SQL {
  const parts = [sql`l.project_id = ${projectId}`];
  if (s.fromNs !== undefined) parts.push(sql`t.start_ns >= ${s.fromNs.toString()}::bigint`);
  if (s.toNs !== undefined) parts.push(sql`t.start_ns < ${s.toNs.toString()}::bigint`);
  if (s.service !== undefined) parts.push(sql`t.service_name = ${s.service}`);
  return sql.join(parts, sql` AND `);
}

const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const intOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

async function readLabelled(
  database: Database,
  projectId: string,
  scope: ValidationScope,
): Promise<{ labels: LabelledTrace[]; judges: Map<string, JudgeView[]> }> {
  const where = scopeWhere(projectId, scope);
  const [labelRows, judgeRows] = await Promise.all([
    database.db.execute(sql`SELECT l.trace_id, l.modes, l.decisive_agent, l.decisive_span_id, l.decisive_step_index, s.trace_id IS NOT NULL AS scored,
        (SELECT jsonb_agg(DISTINCT jsonb_build_array(f.mode, f.detector)) FROM trace_findings f WHERE f.project_id = l.project_id AND f.trace_id = l.trace_id) AS code_findings,
        a.agent AS a_agent, a.span_id AS a_span_id, a.step_index AS a_step_index, a.trace_id IS NOT NULL AS has_code_pick
      FROM trace_labels l JOIN traces t ON t.project_id = l.project_id AND t.trace_id = l.trace_id
      LEFT JOIN trace_scores s ON s.project_id = l.project_id AND s.trace_id = l.trace_id
      LEFT JOIN LATERAL (SELECT x.trace_id, x.agent, x.span_id, x.step_index FROM trace_attributions x
        WHERE x.project_id = l.project_id AND x.trace_id = l.trace_id ORDER BY x.rank, x.ord LIMIT 1) a ON true
      WHERE ${where} ORDER BY l.trace_id`),
    database.db
      .execute(sql`SELECT v.trace_id, v.producer_id, v.status, v.attribution_method, v.attribution_agent, v.attribution_span_id, v.attribution_step_index, v.asked_modes,
        ARRAY(SELECT DISTINCT jf.mode FROM judge_findings jf WHERE jf.project_id = v.project_id AND jf.trace_id = v.trace_id AND jf.producer_id = v.producer_id) AS modes
      FROM trace_labels l JOIN traces t ON t.project_id = l.project_id AND t.trace_id = l.trace_id
      JOIN judge_current_verdicts v ON v.project_id = l.project_id AND v.trace_id = l.trace_id
      WHERE ${where} ORDER BY v.trace_id, v.producer_id`),
  ]);
  const labels = rowsOf(labelRows).map((r): LabelledTrace => ({
    traceId: String(r.trace_id),
    modes: r.modes as Record<string, boolean>,
    agent: strOrNull(r.decisive_agent),
    spanId: strOrNull(r.decisive_span_id),
    stepIndex: intOrNull(r.decisive_step_index),
    scored: r.scored === true,
    codeFindings: codeFindingsOf(r.code_findings),
    code: r.has_code_pick === true ? { agent: strOrNull(r.a_agent), spanId: strOrNull(r.a_span_id), stepIndex: intOrNull(r.a_step_index) } : null,
  }));
  const judges = new Map<string, JudgeView[]>();
  for (const r of rowsOf(judgeRows)) {
    const traceId = String(r.trace_id);
    const views = judges.get(traceId) ?? [];
    views.push({
      producerId: String(r.producer_id),
      succeeded: r.status === "succeeded",
      askedModes: (r.asked_modes as string[] | null) ?? null,
      modes: new Set((r.modes as string[] | null) ?? []),
      attribution:
        r.attribution_method === null || r.attribution_method === undefined
          ? null
          : {
              method: String(r.attribution_method),
              agent: strOrNull(r.attribution_agent),
              spanId: strOrNull(r.attribution_span_id),
              stepIndex: intOrNull(r.attribution_step_index),
            },
    });
    judges.set(traceId, views);
  }
  return { labels, judges };
}

/** [mode, detector] pairs of the stored findings (jsonb; a driver may hand it over as text) by mode. */
function codeFindingsOf(v: unknown): Map<string, Set<string | null>> {
  const pairs = (typeof v === "string" ? JSON.parse(v) : (v ?? [])) as [string, string | null][];
  const byMode = new Map<string, Set<string | null>>();
  for (const [mode, detector] of pairs) byMode.set(mode, (byMode.get(mode) ?? new Set()).add(detector));
  return byMode;
}

/** The code detectors that report a mode, from the detector list. */
function detectorsOf(mode: string): string[] {
  return mastDetectors.filter((d) => d.modes.some((m) => m.mode === mode)).map((d) => d.id);
}

interface Pick {
  agent: string | null;
  spanId: string | null;
  stepIndex: number | null;
}

/** A step pick is right when it names the labelled step (by index when both have one, else by span). */
function sameStep(label: Pick, pick: Pick): boolean | null {
  if (label.stepIndex !== null && pick.stepIndex !== null) return label.stepIndex === pick.stepIndex;
  if (label.spanId !== null && pick.spanId !== null) return label.spanId === pick.spanId;
  return null;
}

function accuracy(source: string, method: string, picks: { label: Pick; pick: Pick | null }[]): AttributionAccuracy {
  const agent = { n: 0, correct: 0 };
  const step = { n: 0, correct: 0 };
  let unanswered = 0;
  for (const { label, pick } of picks) {
    const wantsAgent = label.agent !== null;
    const wantsStep = label.stepIndex !== null || label.spanId !== null;
    if (!wantsAgent && !wantsStep) continue;
    if (pick === null) {
      unanswered++;
      continue;
    }
    if (wantsAgent && pick.agent !== null) {
      agent.n++;
      if (pick.agent === label.agent) agent.correct++;
    }
    const same = wantsStep ? sameStep(label, pick) : null;
    if (same !== null) {
      step.n++;
      if (same) step.correct++;
    }
  }
  return {
    method,
    source,
    agent: { ...agent, accuracy: ratioOrNull(agent.correct, agent.n) },
    step: { ...step, accuracy: ratioOrNull(step.correct, step.n) },
    unanswered,
  };
}

export async function validationMetrics(database: Database, projectId: string, scope: ValidationScope, bar: ValidationBar): Promise<ValidationResult> {
  const { labels, judges } = await readLabelled(database, projectId, scope);
  const producers = [...new Set([...judges.values()].flat().map((v) => v.producerId))].sort();
  const askedBy = new Map<string, (mode: string) => boolean>();
  for (const p of producers) {
    const verdicts = [...judges.values()].flat().filter((v) => v.producerId === p && v.succeeded);
    askedBy.set(p, (mode) => verdicts.some((v) => verdictAsksAbout(v.askedModes, mode)));
  }
  const modes: string[] = [...mastModeIds];
  for (const l of labels) for (const m of Object.keys(l.modes)) if (!modes.includes(m)) modes.push(m);

  const rows: ModeAgreement[] = [];
  for (const mode of modes) {
    const labelled = labels.filter((l) => typeof l.modes[mode] === "boolean");
    const detectors = detectorsOf(mode);
    if (detectors.length > 0) {
      const scored = labelled.filter((l) => l.scored);
      const pairs = scored.map((l) => ({ label: l.modes[mode] === true, predicted: l.codeFindings.has(mode) }));
      const a = binaryAgreement(pairs);
      rows.push({ mode, source: "code", kind: "code", detectors, ...a, ...validationVerdict(a, bar) });
      for (const detector of detectors) {
        // A finding of the mode that does not name its detector could be this one's or another's: the trace cannot be told.
        const told = scored.filter((l) => !(l.codeFindings.get(mode)?.has(null) ?? false));
        const own = binaryAgreement(told.map((l) => ({ label: l.modes[mode] === true, predicted: l.codeFindings.get(mode)?.has(detector) ?? false })));
        rows.push({ mode, source: `code.${detector}`, kind: "code", detectors: [detector], ...own, ...validationVerdict(own, bar) });
      }
    }
    for (const producerId of producers) {
      // A (mode, judge) row only where the judge's verdicts asked about the mode, over the verdicts that did.
      if (!askedBy.get(producerId)?.(mode)) continue;
      const pairs = labelled.flatMap((l) => {
        const v = judges.get(l.traceId)?.find((j) => j.producerId === producerId && j.succeeded);
        return v === undefined || !verdictAsksAbout(v.askedModes, mode) ? [] : [{ label: l.modes[mode] === true, predicted: v.modes.has(mode) }];
      });
      const a = binaryAgreement(pairs);
      rows.push({ mode, source: producerId, kind: "judge", detectors: [], ...a, ...validationVerdict(a, bar) });
    }
  }

  const asLabel = (l: LabelledTrace): Pick => ({ agent: l.agent, spanId: l.spanId, stepIndex: l.stepIndex });
  const attribution = [
    accuracy(
      "code",
      "code",
      labels.filter((l) => l.scored).map((l) => ({ label: asLabel(l), pick: l.code })),
    ),
  ];
  // Replayed labelled traces: what the newest replay that names something blames (a step correction names its span).
  const replayed = await readReplayAttributions(
    database,
    projectId,
    labels.map((l) => l.traceId),
  );
  if (replayed.size > 0) {
    const picks = labels.flatMap((l) => {
      const p = replayed.get(l.traceId);
      return p === undefined ? [] : [{ label: asLabel(l), pick: { agent: p.agent, spanId: p.spanId, stepIndex: null } }];
    });
    attribution.push(accuracy("replay", "replay", picks));
  }
  const methods = new Map<string, { method: string; source: string }>();
  for (const v of [...judges.values()].flat())
    if (v.attribution !== null) methods.set(`${v.producerId}\u0000${v.attribution.method}`, { method: v.attribution.method, source: v.producerId });
  for (const { method, source } of [...methods.values()].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0))) {
    const picks = labels.flatMap((l) => {
      const v = judges.get(l.traceId)?.find((j) => j.producerId === source && j.succeeded);
      if (v === undefined) return [];
      return [{ label: asLabel(l), pick: v.attribution?.method === method ? v.attribution : null }];
    });
    attribution.push(accuracy(source, method, picks));
  }
  return { labelledTraces: labels.length, bar, modes: rows, attribution };
}

/** Per (mode, judge) whether the judge is validated, over every label of the scope (for marking rates). */
export async function judgeValidationIndex(
  database: Database,
  projectId: string,
  scope: ValidationScope,
  bar: ValidationBar,
): Promise<(mode: string, producerId: string) => { validated: boolean; reason: string }> {
  const result = await validationMetrics(database, projectId, scope, bar);
  const byKey = new Map(result.modes.filter((m) => m.kind === "judge").map((m) => [`${m.mode}\u0000${m.source}`, m]));
  return (mode, producerId) => {
    const m = byKey.get(`${mode}\u0000${producerId}`);
    if (m === undefined) return { validated: false, reason: `${producerId} on ${mode}: no labelled trace it judged` };
    return { validated: m.validated, reason: m.reason === null ? "" : `${producerId} on ${mode}: ${m.reason}` };
  };
}
