/**
 * FM-3.2 no or incomplete verification, from cascading errors: an error step
 * never recovered (unrecovered-errors.ts) after which steps that build on it (the same
 * agent's later steps, steps of agents it messaged afterwards) fail too. The
 * failed result went on unchecked until it broke what depended on it, the
 * propagation MAST's FM-3.2 names. A retry of the failed call (same agent,
 * same tool) is no dependent step. Cites the error the chain started from;
 * errors already in a reported chain start none of their own. Needs no
 * configuration and no outcome: the failures are in the trace.
 */
import type { TraceTrajectories } from "../../trajectory/types.ts";
import { finding, quote, type DetectorFinding } from "../finding.ts";
import { stepsBuildingOn, unrecoveredErrors } from "../unrecovered-errors.ts";

export function detectErrorPropagation(t: TraceTrajectories): DetectorFinding[] {
  const findings: DetectorFinding[] = [];
  const inChain = new Set<string>();
  for (const e of unrecoveredErrors(t)) {
    if (inChain.has(e.spanId)) continue;
    const retry = (s: (typeof t.steps)[number]): boolean => s.agentKey === e.agentKey && s.kind === e.kind && s.toolName === e.toolName;
    const failed = stepsBuildingOn(t, e).filter((s) => s.isError && !retry(s));
    if (failed.length === 0) continue;
    for (const s of failed) inChain.add(s.spanId);
    const agents = [...new Set(failed.map((s) => s.agent as string))];
    const why = e.errorType === null ? "" : ` (${quote(e.errorType, 40)})`;
    findings.push(
      finding({
        mode: "FM-3.2",
        agent: e.agent,
        spanId: e.spanId,
        stepIndex: e.index,
        source: "heuristic",
        confidence: 0.5,
        evidence: `${e.agent ?? "?"}'s ${e.toolName ?? e.kind} failed at step ${e.index}${why} and was not retried; ${failed.length} step(s) building on it failed after it (${agents.join(", ")}: ${failed
          .slice(0, 5)
          .map((s) => `step ${s.index} ${s.toolName ?? s.kind}`)
          .join(", ")}${failed.length > 5 ? ", …" : ""})`,
      }),
    );
  }
  return findings;
}
