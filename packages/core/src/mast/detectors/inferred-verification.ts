/**
 * FM-3.2 and FM-3.3 without a contract: the verifiers are inferred from the
 * trace, then checked as verification.ts checks contract-named ones, at lower
 * confidence. An agent is a verifier when a word of its name (or id) says so
 * (reviewer, verifier, critic, checker, qa, judge, ...) or when one of its
 * spans records a verdict (docs/conventions.md §4.3). Never the root agent (it
 * runs the whole trace, not a check of it) nor a trace's only agent (a
 * verifier checks another agent's work). Stands down when a contract names a
 * verifier (registry.ts).
 */
import type { TraceTrajectories } from "../../trajectory/types.ts";
import type { DetectorFinding } from "../finding.ts";
import { verificationFindings, type VerifierCheckOptions } from "./verification.ts";

/** Words of an agent's name that make it a verifier (whole words: "checkout" or "qatar" are none). */
const VERIFIER_WORD =
  /^(review|reviewers?|verify|verifiers?|verification|critic|critics|critique|check|checkers?|qa|judges?|evaluators?|graders?|validators?|auditors?|proofreaders?)$/;

/** Words of a name: split at non-alphanumerics and camelCase humps ("FactChecker", "qa_agent"). */
const nameWords = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");

/** Lowercased name of each inferred verifier, with why it is one (completes "inferred from …"). */
export function inferVerifiers(t: TraceTrajectories): Map<string, string> {
  const inferred = new Map<string, string>();
  if (t.agents.length < 2) return inferred;
  const rootAgent = t.rootSpanId === null ? null : (t.attribution.bySpan.get(t.rootSpanId)?.agentKey ?? null);
  for (const agent of t.agents) {
    if (agent.key === rootAgent) continue;
    const word = [...nameWords(agent.name), ...nameWords(agent.id ?? "")].find((w) => VERIFIER_WORD.test(w));
    if (word !== undefined) {
      inferred.set(agent.name.toLowerCase(), `the word "${word}" in its name`);
      continue;
    }
    const spans = [...agent.steps.map((s) => s.spanId), ...agent.agentSpanIds].map((id) => t.spanById.get(id));
    const verdict = spans.flatMap((s) => s?.content.verdicts ?? [])[0];
    if (verdict !== undefined) inferred.set(agent.name.toLowerCase(), `its verdict attribute ${verdict.key}`);
  }
  return inferred;
}

export function detectInferredVerificationFailures(t: TraceTrajectories, options: VerifierCheckOptions): DetectorFinding[] {
  const inferredBy = inferVerifiers(t);
  return verificationFindings(t, { names: new Set(inferredBy.keys()), inferredBy }, options);
}
