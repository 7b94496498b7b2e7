/**
 * Decisive-error attribution for a failed trace, code heuristics only
 * (docs/failure-modes.md §7): first failed handoff contract, else first
 * unrecovered tool error, else first dropped constraint. Every answer records
 * its method. When no rule fires, a ranked list of suspects with low
 * confidence: attribution is a lead for a person, not a verdict (docs/failure-modes.md §7).
 * Suspects come from the findings, unrecovered error steps and what the
 * trajectory shows (decisive-cues.ts): where a loop started, a turn approving
 * a run that failed, and the step the approved result and the final answer
 * got their content from. Only with no evidence at all is the last step
 * named, as a labelled fallback.
 */
import type { Step, TraceTrajectories } from "../trajectory/types.ts";
import { approvingTurnCue, contentCues, loopCues, toolLoop, type CueKind } from "./decisive-cues.ts";
import { chargeRequester, executionFailureCue, offTaskCue, taskSwapCue, valueOriginCue } from "./decisive-origin.ts";
import { executorKeys, requesterOf } from "./executors.ts";
import { relaySteps } from "./relays.ts";
import { correctedContributionCue } from "./corrections.ts";
import type { DetectorFinding } from "../mast/finding.ts";
import { quote } from "../mast/finding.ts";
import { unrecoveredErrors } from "../mast/unrecovered-errors.ts";

export type DecisiveMethod = "first_failed_handoff_contract" | "first_unrecovered_tool_error" | "first_dropped_constraint";

export interface DecisiveAttribution {
  method: DecisiveMethod;
  agent: string | null;
  spanId: string;
  stepIndex: number | null;
  confidence: number;
  evidence: string;
}

export interface Suspect {
  /**
   * "suspect": ranked from evidence; "suspect_last_step_fallback": no evidence, the last step is named;
   * "suspect_no_steps_fallback": the trace has no step at all (no model, tool, handoff or turn), its root span is named.
   */
  method: "suspect" | "suspect_last_step_fallback" | "suspect_no_steps_fallback";
  agent: string | null;
  spanId: string;
  stepIndex: number | null;
  score: number;
  confidence: number;
  evidence: string[];
}

export interface DecisiveErrorResult {
  status: "not_failed" | "attributed" | "suspects";
  decisive: DecisiveAttribution | null;
  /** Other rules that fired, in rule order: reported so disagreement is visible. */
  otherRules: DecisiveAttribution[];
  suspects: Suspect[];
}

export interface DecisiveErrorOptions {
  failed: boolean;
  /** Findings of checkHandoffContracts (FM-1.1 schema failures, FM-2.4 dropped constraints). */
  handoffFindings?: DetectorFinding[];
  /** Every other finding of the trace, used to rank suspects when no rule fires. */
  findings?: DetectorFinding[];
  /** Most suspects listed. Default 5. */
  maxSuspects?: number;
}

const byStep = (a: DetectorFinding, b: DetectorFinding): number => (a.stepIndex ?? Number.MAX_SAFE_INTEGER) - (b.stepIndex ?? Number.MAX_SAFE_INTEGER);

export function attributeDecisiveError(t: TraceTrajectories, options: DecisiveErrorOptions): DecisiveErrorResult {
  if (!options.failed) return { status: "not_failed", decisive: null, otherRules: [], suspects: [] };
  const handoff = [...(options.handoffFindings ?? [])].filter((f) => f.source === "contract").sort(byStep);
  const fired: DecisiveAttribution[] = [];
  const schema = handoff.find((f) => f.mode === "FM-1.1");
  if (schema !== undefined) fired.push(fromFinding("first_failed_handoff_contract", schema, CALIBRATED_RULE.first_failed_handoff_contract));
  const executors = executorKeys(t);
  const toolError = unrecoveredErrors(t, ["tool"])[0];
  if (toolError !== undefined) {
    const what = `${toolError.agent ?? "?"} ${toolError.toolName ?? "tool"} failed at step ${toolError.index}${toolError.errorType ? ` (${quote(toolError.errorType, 40)})` : ""} and was never retried successfully`;
    // An executor only ran what another agent asked for: the request is charged, at its step.
    const requester = executors.has(toolError.agentKey ?? "") ? requesterOf(t, toolError, executors) : null;
    const at = requester ?? toolError;
    fired.push({
      method: "first_unrecovered_tool_error",
      agent: at.agent,
      spanId: at.spanId,
      stepIndex: at.index,
      confidence: CALIBRATED_RULE.first_unrecovered_tool_error,
      evidence:
        requester === null
          ? what
          : `${what}; ${toolError.agent ?? "?"} only ran ${requester.agent ?? "?"}'s request at step ${requester.index} ("${quote(requester.outputText ?? "", 60)}"), which is charged`,
    });
  }
  const dropped = handoff.find((f) => f.mode === "FM-2.4");
  if (dropped !== undefined) fired.push(fromFinding("first_dropped_constraint", dropped, CALIBRATED_RULE.first_dropped_constraint));
  const [decisive, ...otherRules] = fired;
  if (decisive !== undefined) return { status: "attributed", decisive, otherRules, suspects: [] };
  return { status: "suspects", decisive: null, otherRules: [], suspects: rankSuspects(t, options.findings ?? [], options.maxSuspects ?? 5, executors) };
}

function fromFinding(method: DecisiveMethod, f: DetectorFinding, confidence: number): DecisiveAttribution {
  return { method, agent: f.agent, spanId: f.spanId, stepIndex: f.stepIndex, confidence, evidence: f.evidence };
}

/** What led a suspect's score: the kind of its largest contribution (a finding, an error, or a trajectory cue). */
type EvidenceKind = CueKind | "finding" | "unrecovered_error" | "recovered_error";

/**
 * Rank-1 confidence: how often a rank-1 pick led by each kind of evidence
 * named a labelled decisive agent, pooled over the labelled sets (the
 * project's labelled traces and group chats and the AEGIS sample; docs/attribution-accuracy.md,
 * "Calibration"), rounded to 0.05. Lower ranks scale it by their score. Kinds
 * too rare there to measure keep a prior, said so below.
 */
const CALIBRATED_SUSPECT: Record<EvidenceKind, number> = {
  finding: 0.65,
  // Prior: no labelled rank-1 pick is led by an unrecovered non-tool error alone.
  unrecovered_error: 0.5,
  // Prior: a recovered error leads only when nothing else is known.
  recovered_error: 0.1,
  loop_start: 0.65,
  // Prior: one labelled pick.
  approved_failed_run: 0.35,
  approved_result_origin: 0.5,
  // Prior: two labelled picks.
  rejection_followed: 0.6,
  final_answer_origin: 0.6,
  task_changed: 0.85,
  off_task: 0.85,
  // Prior: three labelled picks (all right).
  execution_failed: 0.6,
  value_origin: 0.75,
  corrected_contribution: 0.85,
};
const CALIBRATED_RULE: Record<DecisiveMethod, number> = {
  first_failed_handoff_contract: 0.8,
  first_unrecovered_tool_error: 0.65,
  first_dropped_constraint: 0.8,
};

interface Scored extends Suspect {
  byKind: Map<EvidenceKind, number>;
}

/** Earlier and more confident evidence ranks higher; error steps count as weak evidence. */
function rankSuspects(t: TraceTrajectories, findings: DetectorFinding[], max: number, executors: ReadonlySet<string>): Suspect[] {
  const n = Math.max(t.steps.length, 1);
  const earliness = (stepIndex: number | null): number => (stepIndex === null ? 0.5 : 1 - (0.5 * stepIndex) / n);
  const bySpan = new Map<string, Scored>();
  const add = (
    kind: EvidenceKind,
    at: Pick<Step, "agent" | "agentKey" | "spanId" | "index">,
    stepIndex: number | null,
    weight: number,
    evidence: string,
  ): void => {
    // Evidence on an executor's step is charged to the step whose request it ran.
    const step = stepIndex === null ? undefined : t.steps[stepIndex];
    const requester = step !== undefined && executors.has(at.agentKey ?? "") ? requesterOf(t, step, executors) : null;
    const to = requester ?? at;
    const index = requester?.index ?? stepIndex;
    const note =
      requester === null
        ? ""
        : `; ${at.agent ?? "?"} at step ${stepIndex} only ran ${requester.agent ?? "?"}'s request at step ${requester.index}, which is charged`;
    const s: Scored = bySpan.get(to.spanId) ?? {
      method: "suspect",
      agent: to.agent,
      spanId: to.spanId,
      stepIndex: index,
      score: 0,
      confidence: 0,
      evidence: [],
      byKind: new Map<EvidenceKind, number>(),
    };
    const w = weight * earliness(index);
    s.score += w;
    s.byKind.set(kind, (s.byKind.get(kind) ?? 0) + w);
    s.evidence.push(`${evidence}${note}`);
    bySpan.set(to.spanId, s);
  };
  const stepAt = (f: { agent: string | null; spanId: string; stepIndex: number | null }) => ({
    agent: f.agent,
    agentKey: f.stepIndex === null ? null : (t.steps[f.stepIndex]?.agentKey ?? null),
    spanId: f.spanId,
    index: f.stepIndex ?? -1,
  });
  // An error the agent recovered from (a later success of the same tool or model) is not where the run was lost:
  // it, a finding on it and a "loop" of retries after it stay listed, barely weighted, and are no structural evidence.
  const unrecovered = unrecoveredErrors(t, ["tool", "llm", "handoff", "message"]);
  const lost = new Set(unrecovered.map((s) => s.spanId));
  const recovered = new Set(t.steps.filter((s) => s.isError && !lost.has(s.spanId)).map((s) => s.spanId));
  let structural = unrecovered.length > 0;
  for (const f of findings) {
    // A tool loop is cited where it started, not at the repeat that crossed the threshold.
    const loop = toolLoop(t, f);
    const start = loop?.[1];
    const at = start === undefined ? stepAt(f) : start;
    const passed = recovered.has(f.spanId) || (loop?.some((s) => s.isError) ?? false);
    if (f.mode !== "FM-3.3" && !passed) structural = true;
    const note = `${start === undefined ? "" : `; the loop started at step ${start.index}`}${passed ? "; the run got past it (an error recovered by a retry)" : ""}`;
    add(passed ? "recovered_error" : "finding", at, start?.index ?? f.stepIndex, passed ? 0.1 * f.confidence : f.confidence, `${f.mode}: ${f.evidence}${note}`);
  }
  for (const s of t.steps) {
    if (!s.isError) continue;
    const what = `${s.toolName ?? s.kind} at step ${s.index}${s.errorType ? ` (${quote(s.errorType, 40)})` : ""}`;
    if (lost.has(s.spanId)) add("unrecovered_error", s, s.index, 0.3, `error in ${what}`);
    else add("recovered_error", s, s.index, 0.05, `error in ${what}, recovered by a later success`);
  }
  const loops = loopCues(t, findings);
  const turn = approvingTurnCue(t, findings);
  const cues = [...loops, ...(turn === null ? [] : [turn])];
  // Where the run's content went wrong, read whatever its shape shows: a changed task, a turn off the task,
  // a failed run of another agent's request.
  // A turn that only relays the task and other turns is no author (relays.ts): content is traced past it.
  const relays = relaySteps(t.goal, t.steps);
  const corrected = correctedContributionCue(t, executors, relays);
  for (const cue of [taskSwapCue(t, executors, relays), offTaskCue(t, executors, relays), executionFailureCue(t, executors), corrected])
    if (cue !== null) cues.push(cue);
  // The content trace of approvals and the final answer is read only when the shape shows nothing wrong but an
  // approval: structural evidence outranks inference from text. A run that called a contribution wrong and edited
  // it out ended on the corrected answer: where that answer's words came from is no evidence of the mistake.
  if (!structural && loops.length === 0) {
    cues.push(...contentCues(t, findings, relays).filter((c) => corrected === null || c.kind !== "final_answer_origin"));
    const value = corrected === null ? valueOriginCue(t, executors, relays) : null;
    if (value !== null) cues.push(value);
  }
  for (const cue of cues.map((c) => chargeRequester(t, c, executors))) add(cue.kind, cue.step, cue.step.index, cue.weight, cue.evidence);
  if (bySpan.size === 0) {
    const last = t.steps[t.steps.length - 1];
    if (last === undefined) return noStepsFallback(t);
    return [
      {
        method: "suspect_last_step_fallback",
        agent: last.agent,
        spanId: last.spanId,
        stepIndex: last.index,
        score: 0,
        confidence: 0.1,
        evidence: ["produced the final step; no other evidence"],
      },
    ];
  }
  const ranked = [...bySpan.values()].sort((a, b) => b.score - a.score || (a.stepIndex ?? 0) - (b.stepIndex ?? 0));
  const first = ranked[0] as Scored;
  const lead = [...first.byKind.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "finding";
  const confidence = CALIBRATED_SUSPECT[lead];
  return ranked.slice(0, max).map(({ byKind: _byKind, ...s }) => ({ ...s, confidence: Math.round(((confidence * s.score) / first.score) * 1000) / 1000 }));
}

/** A failed trace with no step still gets a lead: its root span (else its earliest span) and the agent that owns it. */
function noStepsFallback(t: TraceTrajectories): Suspect[] {
  const spans = [...t.spanById.values()];
  const root =
    (t.rootSpanId === null ? undefined : t.spanById.get(t.rootSpanId)) ?? spans.sort((a, b) => (a.startTimeUnixNano < b.startTimeUnixNano ? -1 : 1))[0];
  if (root === undefined) return [];
  const owner = t.agents.find((a) => a.agentSpanIds.includes(root.spanId)) ?? t.agents.find((a) => a.key === t.attribution.bySpan.get(root.spanId)?.agentKey);
  return [
    {
      method: "suspect_no_steps_fallback",
      agent: owner?.name ?? root.agentName,
      spanId: root.spanId,
      stepIndex: null,
      score: 0,
      confidence: 0.05,
      evidence: ["the trace has no model, tool, handoff or turn step; its root span is named"],
    },
  ];
}
