/** Runs every detector of the list (detectors.ts) over one trace and returns findings, signals and the scores others read. */
import type { TraceTrajectories } from "../trajectory/types.ts";
import { mastDetectors, type Detector, type DetectorScores, type MastOptions } from "./detectors.ts";
import { sortFindings, type Finding, type Signal } from "./finding.ts";

export interface MastResult extends DetectorScores {
  findings: Finding[];
  signals: Signal[];
}

/** `detectors`: the list by default; tests pass a part of it. */
export function detectMast(t: TraceTrajectories, options: MastOptions = {}, detectors: readonly Detector[] = mastDetectors): MastResult {
  const findings: Finding[] = [];
  const signals: Signal[] = [];
  const scores: Partial<DetectorScores> = {};
  for (const detector of detectors) {
    const out = detector.run(t, options);
    findings.push(...(out.findings ?? []));
    signals.push(...(out.signals ?? []));
    Object.assign(scores, out.scores);
  }
  const { handoffContracts, roleContracts, ignoredInput } = scores;
  // A programming error (a detector left out of the list), never a property of the trace.
  if (handoffContracts === undefined || roleContracts === undefined || ignoredInput === undefined) {
    throw new Error(`detector list lacks a detector whose score MastResult carries (has: ${Object.keys(scores).join(", ") || "none"})`);
  }
  return { findings: sortFindings(findings), signals, handoffContracts, roleContracts, ignoredInput };
}
