/** Runs every detector of the list (registry.ts) over one trace and returns findings, signals and the scores others read. */
import type { TraceTrajectories } from "../trajectory/types.ts";
import { configuredNeedsOf, mastDetectors, standsDown, type Detector, type DetectorScores, type MastOptions } from "./registry.ts";
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
  const configured = configuredNeedsOf(options);
  for (const detector of detectors) {
    // A config-free heuristic never adds to what a configured detector of the same mode reports.
    const silenced = new Set(detector.modes.filter((m) => standsDown(m, configured)).map((m) => m.mode));
    if (silenced.size > 0 && silenced.size === detector.modes.length && detector.signals.length === 0) continue;
    const out = detector.run(t, options);
    // Stamped here, so a detector's file need not know its id in the list.
    for (const f of out.findings ?? []) if (!silenced.has(f.mode)) findings.push({ ...f, detector: detector.id });
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
