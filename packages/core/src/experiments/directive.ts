/**
 * The directive (docs/experiments.md §7): what the team should do, derived
 * from the report's numbers. Ship or hold against the project's bar; the
 * dominant failure mode and the stage it starts at; the structural change the
 * failure taxonomy points to for that mode.
 */
import type { Interval } from "./interval.ts";

/** The project's bar: a figure of the candidate whose interval must clear `min`. */
export type ShipBar = { kind: "cau"; min: number } | { kind: "pass_hat_k"; k: number; min: number } | { kind: "quality_difference"; min: number };

export type FailureStage = "planning" | "handoff" | "worker" | "verification";

/** The change the taxonomy points to, by mode (docs/failure-modes.md §1). */
const structuralChanges: Record<string, string> = {
  "FM-1.1": "tighten the task specification the agents receive (an explicit interface or output schema)",
  "FM-1.2": "narrow each agent's delegation prompt to its role, and enforce it with an agent contract",
  "FM-1.3": "give agents a memory of steps already taken, or a stop on repeated steps",
  "FM-1.4": "pass state explicitly in a handoff contract instead of relying on conversation history",
  "FM-1.5": "state the termination condition explicitly (a completion check) rather than a step cap",
  "FM-2.1": "persist what was established across conversation restarts (a handoff or provenance contract)",
  "FM-2.2": "let agents ask for clarification on ambiguous delegations (a narrower delegation prompt)",
  "FM-2.3": "restate the goal in every delegation (a narrower delegation prompt)",
  "FM-2.4": "add a handoff contract listing the constraints each handoff must carry",
  "FM-2.5": "require receivers to cite what they used from a handoff (a provenance contract)",
  "FM-2.6": "check that actions match stated plans (a verifier on the plan step)",
  "FM-3.1": "add a completion check before the run may stop (a verifier)",
  "FM-3.2": "add a verifier that checks the result against the task before it is returned",
  "FM-3.3": "strengthen the verifier: check against the gold outcome or tests, not the producer's claim",
};

export function structuralChangeFor(mode: string): string | null {
  return structuralChanges[mode] ?? null;
}

export interface DirectiveInputs {
  bar: ShipBar | null;
  candidate: string | null;
  /** The candidate's figures the bar can name (null when not computed). */
  cau: Interval | null;
  cauStatus: string | null;
  qualityDifference: Interval | null;
  passHatK: (k: number) => Interval | null;
  /** The candidate's measured failure modes with their rate over its runs, and where each mode's failing runs started. */
  modes: { mode: string; rate: number; runs: number; stages: Partial<Record<FailureStage, number>> }[];
  /** Agents the leave-one-out flagged. */
  harmful: string[];
  deadWeight: string[];
}

export interface Directive {
  decision: "ship" | "hold" | "no_bar";
  /** Why, from the numbers. */
  reasons: string[];
  dominantMode: { mode: string; rate: number; startsAt: FailureStage | null } | null;
  structuralChange: string | null;
  /** Agents to remove or narrow, with the reason. */
  agentChanges: string[];
}

const fmt = (x: number) => (Math.abs(x) >= 0.01 || x === 0 ? x.toFixed(3) : x.toExponential(2));

export function deriveDirective(d: DirectiveInputs): Directive {
  const reasons: string[] = [];
  let decision: Directive["decision"] = "no_bar";
  if (d.bar === null) reasons.push("the project has set no ship bar (PUT /experiment-settings)");
  else if (d.candidate === null) {
    decision = "hold";
    reasons.push("no candidate variant to compare with the baseline");
  } else {
    const figure = d.bar.kind === "cau" ? d.cau : d.bar.kind === "quality_difference" ? d.qualityDifference : d.passHatK(d.bar.k);
    const label = d.bar.kind === "pass_hat_k" ? `pass^${d.bar.k}` : d.bar.kind === "cau" ? "CAU" : "the quality difference";
    if (figure === null) {
      decision = "hold";
      reasons.push(`${label} is not estimable${d.bar.kind === "cau" && d.cauStatus !== null ? ` (${d.cauStatus})` : ""}, so the bar cannot be cleared`);
    } else if (figure.lower > d.bar.min) {
      decision = "ship";
      reasons.push(`${label} of ${d.candidate} is ${fmt(figure.estimate)} [${fmt(figure.lower)}, ${fmt(figure.upper)}], clear of the bar ${fmt(d.bar.min)}`);
    } else {
      decision = "hold";
      reasons.push(
        figure.estimate > d.bar.min
          ? `${label} of ${d.candidate} is ${fmt(figure.estimate)} but its interval [${fmt(figure.lower)}, ${fmt(figure.upper)}] reaches below the bar ${fmt(d.bar.min)}: run more tasks`
          : `${label} of ${d.candidate} is ${fmt(figure.estimate)} [${fmt(figure.lower)}, ${fmt(figure.upper)}], below the bar ${fmt(d.bar.min)}`,
      );
    }
    if (figure !== null && figure.fewTasks) reasons.push(`only ${figure.tasks} tasks: the interval is too wide to trust`);
  }
  const top = [...d.modes].filter((m) => m.runs > 0).sort((a, b) => b.rate - a.rate || (a.mode < b.mode ? -1 : 1))[0];
  const dominantMode =
    top === undefined
      ? null
      : {
          mode: top.mode,
          rate: top.rate,
          startsAt: (Object.entries(top.stages) as [FailureStage, number][]).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null,
        };
  const agentChanges = [
    ...d.harmful.map((a) => `remove or rework ${a}: the system does better without it, beyond noise`),
    ...d.deadWeight.map((a) => `consider removing ${a}: removing it changes nothing beyond noise`),
  ];
  return { decision, reasons, dominantMode, structuralChange: dominantMode === null ? null : structuralChangeFor(dominantMode.mode), agentChanges };
}
