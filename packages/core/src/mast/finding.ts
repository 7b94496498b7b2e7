/** Findings (MAST failure modes found by code) and trace-level signals. See docs/failure-modes.md §2–4. */
import { categoryOf, type MastCategory, type MastModeId } from "./modes.ts";

export { categoryOf, mastCategories, mastModeIds, type MastCategory, type MastModeId } from "./modes.ts";

export type FindingSource = "heuristic" | "contract";

/** A finding as a detector returns it; detectMast adds the detector's id (Finding). */
export interface DetectorFinding {
  mode: MastModeId;
  category: MastCategory;
  /** Agent name the finding is attributed to. */
  agent: string | null;
  spanId: string;
  /** Global step index (TraceTrajectories.steps), null when the cited span is not a step. */
  stepIndex: number | null;
  source: FindingSource;
  /** 0..1 */
  confidence: number;
  evidence: string;
}

/** A finding as detectMast reports it: with the id of the detector (registry.ts) that produced it. */
export interface Finding extends DetectorFinding {
  detector: string;
}

export function finding(f: Omit<DetectorFinding, "category">): DetectorFinding {
  return { ...f, category: categoryOf(f.mode) };
}

/** Cross-cutting signals reported next to the modes (docs/failure-modes.md §4). */
/** milestones_not_evaluated: an evaluation budget ran out, so the milestone results are incomplete. */
export type SignalKind = "cascade" | "redundant_work" | "milestones_not_evaluated";

export interface Signal {
  kind: SignalKind;
  agents: string[];
  spanIds: string[];
  stepIndices: number[];
  confidence: number;
  evidence: string;
}

/** Order findings by step (nulls last), then mode, for stable output. */
export function sortFindings<F extends DetectorFinding>(findings: readonly F[]): F[] {
  return [...findings].sort((a, b) => {
    const sa = a.stepIndex ?? Number.MAX_SAFE_INTEGER;
    const sb = b.stepIndex ?? Number.MAX_SAFE_INTEGER;
    if (sa !== sb) return sa - sb;
    return a.mode < b.mode ? -1 : a.mode > b.mode ? 1 : 0;
  });
}

/** Shorten evidence quotes so findings stay small. */
export function quote(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
