/**
 * Decisive-error attribution of a failed run as rows: the rule that fired
 * first is rank 1, other rules that fired follow (their disagreement stays
 * visible); when no rule fires, the ranked suspects (method "suspect", low
 * confidence; "suspect_last_step_fallback" when nothing but the last step is known,
 * "suspect_no_steps_fallback" naming the root span of a trace without steps). A run that did not fail (or whose outcome is unknown) gets none.
 */
import { attributeDecisiveError, type DecisiveAttribution } from "../attribution/decisive-error.ts";
import type { MastResult } from "../mast/run.ts";
import type { TraceTrajectories } from "../trajectory/types.ts";
import type { AttributionRow } from "./record.ts";

export function attributionRows(t: TraceTrajectories, success: boolean | null, mast: MastResult): AttributionRow[] {
  const result = attributeDecisiveError(t, {
    failed: success === false,
    handoffFindings: mast.handoffContracts.findings,
    findings: mast.findings,
  });
  if (result.status === "not_failed") return [];
  if (result.decisive !== null) {
    return [result.decisive, ...result.otherRules].map((d: DecisiveAttribution, i) => ({
      method: d.method,
      rank: i + 1,
      agent: d.agent,
      stepIndex: d.stepIndex,
      spanId: d.spanId,
      reason: d.evidence,
      confidence: d.confidence,
    }));
  }
  return result.suspects.map((s, i) => ({
    method: s.method,
    rank: i + 1,
    agent: s.agent,
    stepIndex: s.stepIndex,
    spanId: s.spanId,
    reason: s.evidence.join("; "),
    confidence: s.confidence,
  }));
}
