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
import type { TraceTrajectories } from "../trajectory/types.ts";
import { approvingTurnCue, contentCues, loopCues, toolLoop } from "./decisive-cues.ts";
import type { DetectorFinding } from "./finding.ts";
import { quote } from "./finding.ts";
import { unrecoveredErrors } from "./signals.ts";

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
  if (schema !== undefined) fired.push(fromFinding("first_failed_handoff_contract", schema, 0.6));
  const toolError = unrecoveredErrors(t, ["tool"])[0];
  if (toolError !== undefined) {
    fired.push({
      method: "first_unrecovered_tool_error",
      agent: toolError.agent,
      spanId: toolError.spanId,
      stepIndex: toolError.index,
      confidence: 0.5,
      evidence: `${toolError.agent ?? "?"} ${toolError.toolName ?? "tool"} failed${toolError.errorType ? ` (${quote(toolError.errorType, 40)})` : ""} and was never retried successfully`,
    });
  }
  const dropped = handoff.find((f) => f.mode === "FM-2.4");
  if (dropped !== undefined) fired.push(fromFinding("first_dropped_constraint", dropped, 0.5));
  const [decisive, ...otherRules] = fired;
  if (decisive !== undefined) return { status: "attributed", decisive, otherRules, suspects: [] };
  return { status: "suspects", decisive: null, otherRules: [], suspects: rankSuspects(t, options.findings ?? [], options.maxSuspects ?? 5) };
}

function fromFinding(method: DecisiveMethod, f: DetectorFinding, confidence: number): DecisiveAttribution {
  return { method, agent: f.agent, spanId: f.spanId, stepIndex: f.stepIndex, confidence, evidence: f.evidence };
}

/** Earlier and more confident evidence ranks higher; error steps count as weak evidence. */
function rankSuspects(t: TraceTrajectories, findings: DetectorFinding[], max: number): Suspect[] {
  const n = Math.max(t.steps.length, 1);
  const earliness = (stepIndex: number | null): number => (stepIndex === null ? 0.5 : 1 - (0.5 * stepIndex) / n);
  const bySpan = new Map<string, Suspect>();
  const add = (agent: string | null, spanId: string, stepIndex: number | null, weight: number, evidence: string): void => {
    const s = bySpan.get(spanId) ?? { method: "suspect" as const, agent, spanId, stepIndex, score: 0, confidence: 0, evidence: [] };
    s.score += weight * earliness(stepIndex);
    s.evidence.push(evidence);
    bySpan.set(spanId, s);
  };
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
    const at = start === undefined ? f : { agent: start.agent, spanId: start.spanId, stepIndex: start.index };
    const passed = recovered.has(f.spanId) || (loop?.some((s) => s.isError) ?? false);
    if (f.mode !== "FM-3.3" && !passed) structural = true;
    const note = `${start === undefined ? "" : `; the loop started at step ${start.index}`}${passed ? "; the run got past it (an error recovered by a retry)" : ""}`;
    add(at.agent, at.spanId, at.stepIndex, passed ? 0.1 * f.confidence : f.confidence, `${f.mode}: ${f.evidence}${note}`);
  }
  for (const s of t.steps) {
    if (!s.isError) continue;
    const what = `${s.toolName ?? s.kind}${s.errorType ? ` (${quote(s.errorType, 40)})` : ""}`;
    if (lost.has(s.spanId)) add(s.agent, s.spanId, s.index, 0.3, `error in ${what}`);
    else add(s.agent, s.spanId, s.index, 0.05, `error in ${what}, recovered by a later success`);
  }
  const loops = loopCues(t, findings);
  const turn = approvingTurnCue(t, findings);
  const cues = [...loops, ...(turn === null ? [] : [turn])];
  // Content is read only when the shape shows nothing wrong but an approval: structural evidence outranks inference from text.
  if (!structural && loops.length === 0) cues.push(...contentCues(t, findings));
  for (const cue of cues) add(cue.step.agent, cue.step.spanId, cue.step.index, cue.weight, cue.evidence);
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
  const top = ranked[0]?.score ?? 1;
  // Low by construction: without a rule, the best automated methods name the step ~14% of the time (Who&When).
  return ranked.slice(0, max).map((s) => ({ ...s, confidence: Math.round(((0.3 * s.score) / top) * 1000) / 1000 }));
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
