/**
 * Milestones: ordered (id, weight, check, requires). A milestone passes when
 * its check holds and everything it requires passed (gating). The check is
 * opaque here and evaluated by an injected evaluator (the worker uses an
 * expression library), so core stays pure. docs/metrics.md §5.
 */
import type { TraceTrajectories } from "../trajectory/types.ts";
import { agentNameFromKey } from "../trajectory/build.ts";

export interface Milestone<C = unknown> {
  id: string;
  weight: number;
  check: C;
  /** Ids of milestones that must pass for this one to earn credit. */
  requires?: string[];
  /** Counts toward "required milestones unmet" (FM-3.1). Default true. */
  required?: boolean;
}

/** Why a check was not evaluated (its evaluation budget ran out before it); never a pass or a fail. */
export type NotEvaluatedReason = "trace_budget" | "project_budget";

export type MilestoneCheckResult = boolean | { passed: boolean; spanId?: string | null } | { passed: false; notEvaluated: NotEvaluatedReason };

export function notEvaluatedReasonOf(r: MilestoneCheckResult): NotEvaluatedReason | null {
  return typeof r === "object" && "notEvaluated" in r ? r.notEvaluated : null;
}
export type MilestoneEvaluator<C = unknown> = (check: C, view: TraceTrajectories) => MilestoneCheckResult;

export interface MilestoneDetail {
  id: string;
  index: number;
  weight: number;
  required: boolean;
  checkPassed: boolean;
  /** Required ids that did not pass (gating). */
  missingRequires: string[];
  /**
   * False when the check, or a milestone it requires, was not evaluated
   * (budget exhausted): passed is then false but means "unknown", not "failed".
   */
  evaluated: boolean;
  notEvaluatedReason: NotEvaluatedReason | null;
  passed: boolean;
  spanId: string | null;
  stepIndex: number | null;
  /** Agent whose span satisfied the milestone. */
  agent: string | null;
}

export interface AgentMilestoneCredit {
  agent: string;
  /** Share of the passed milestones' weight; sums to 1 over agents (with unattributedCredit). */
  credit: number;
  milestones: string[];
}

export interface MilestoneScore {
  /** Passed weight / total weight; null for an empty set, or when any milestone was not evaluated. */
  partialCredit: number | null;
  /** null when any milestone was not evaluated (the outcome is unknown, not a failure). */
  fullSuccess: boolean | null;
  /** Milestones whose check (or a requirement's) was not evaluated. */
  notEvaluated: number;
  /** Index of the last passed milestone, -1 when none passed. */
  furthestIndex: number;
  passedCount: number;
  detail: MilestoneDetail[];
  agentCredit: AgentMilestoneCredit[];
  /** Credit share of passed milestones no agent's span satisfied. */
  unattributedCredit: number;
}

export function scoreMilestones<C>(t: TraceTrajectories, milestones: Milestone<C>[], evaluate: MilestoneEvaluator<C>): MilestoneScore {
  const checks = milestones.map((m) => {
    const r = evaluate(m.check, t);
    const notEvaluated = notEvaluatedReasonOf(r);
    if (notEvaluated !== null) return { passed: false, spanId: null, notEvaluated };
    return typeof r === "boolean"
      ? { passed: r, spanId: null, notEvaluated }
      : { passed: r.passed, spanId: ("spanId" in r ? r.spanId : null) ?? null, notEvaluated };
  });
  // Gating to a fixpoint so a "requires" on a later milestone also works.
  const passed = checks.map((c) => c.passed);
  const idIndex = new Map(milestones.map((m, i) => [m.id, i]));
  let changed = true;
  while (changed) {
    changed = false;
    milestones.forEach((m, i) => {
      if (!passed[i]) return;
      const ok = (m.requires ?? []).every((id) => {
        const j = idIndex.get(id);
        return j !== undefined && passed[j] === true;
      });
      if (!ok) {
        passed[i] = false;
        changed = true;
      }
    });
  }
  // Unknown spreads through gating: a milestone whose own check passed but that requires an unknown one is unknown.
  const unknown: (NotEvaluatedReason | null)[] = checks.map((c) => c.notEvaluated);
  changed = true;
  while (changed) {
    changed = false;
    milestones.forEach((m, i) => {
      if (unknown[i] !== null || passed[i] || !checks[i]?.passed) return;
      const blockers = (m.requires ?? []).map((id) => idIndex.get(id)).filter((j): j is number => j !== undefined && passed[j] !== true);
      const unknownBlocker = blockers.find((j) => unknown[j] !== null);
      if (unknownBlocker !== undefined && blockers.every((j) => unknown[j] !== null)) {
        unknown[i] = unknown[unknownBlocker]!;
        changed = true;
      }
    });
  }
  const agentOfSpan = (spanId: string | null): string | null => {
    if (spanId === null) return null;
    const key = t.attribution.bySpan.get(spanId)?.agentKey ?? null;
    return key === null ? null : (t.attribution.agents.find((a) => a.key === key)?.name ?? agentNameFromKey(key));
  };
  const detail: MilestoneDetail[] = milestones.map((m, i) => {
    const check = checks[i] ?? { passed: false, spanId: null };
    const isPassed = passed[i] === true;
    const spanId = check.spanId;
    return {
      id: m.id,
      index: i,
      weight: m.weight,
      required: m.required ?? true,
      checkPassed: check.passed,
      missingRequires: (m.requires ?? []).filter((id) => {
        const j = idIndex.get(id);
        return j === undefined || passed[j] !== true;
      }),
      evaluated: unknown[i] === null,
      notEvaluatedReason: unknown[i] ?? null,
      passed: isPassed,
      spanId,
      stepIndex: spanId === null ? null : (t.stepIndexBySpan.get(spanId) ?? null),
      agent: agentOfSpan(spanId),
    };
  });
  const totalWeight = milestones.reduce((n, m) => n + m.weight, 0);
  const passedDetail = detail.filter((d) => d.passed);
  const passedWeight = passedDetail.reduce((n, d) => n + d.weight, 0);
  // Credit by weight; when all passed weights are 0, by count.
  const creditOf = (d: MilestoneDetail): number => (passedWeight > 0 ? d.weight / passedWeight : 1 / passedDetail.length);
  const credit = new Map<string, AgentMilestoneCredit>();
  for (const a of t.agents) if (!credit.has(a.name)) credit.set(a.name, { agent: a.name, credit: 0, milestones: [] });
  let unattributedCredit = 0;
  for (const d of passedDetail) {
    if (d.agent === null) {
      unattributedCredit += creditOf(d);
      continue;
    }
    const entry = credit.get(d.agent) ?? { agent: d.agent, credit: 0, milestones: [] };
    entry.credit += creditOf(d);
    entry.milestones.push(d.id);
    credit.set(d.agent, entry);
  }
  const furthestIndex = passedDetail.length === 0 ? -1 : Math.max(...passedDetail.map((d) => d.index));
  const notEvaluated = unknown.filter((u) => u !== null).length;
  return {
    partialCredit: milestones.length === 0 || totalWeight === 0 || notEvaluated > 0 ? null : passedWeight / totalWeight,
    fullSuccess: notEvaluated > 0 ? null : milestones.length > 0 && passedDetail.length === milestones.length,
    notEvaluated,
    furthestIndex,
    passedCount: passedDetail.length,
    detail,
    agentCredit: [...credit.values()],
    unattributedCredit,
  };
}
