/**
 * Counterfactual replay report (docs/experiments.md §9): a failed trace is
 * re-run with one correction at a time and with all of them together, each
 * over several trials. A correction that makes a majority of its trials
 * succeed alone is decisive; when none is but the combination is, the blame is
 * shared. Pure: the runs come in with their dispatch state and outcome.
 */

/** One correction set: a single correction, or every correction together. */
export interface ReplaySet {
  /** "agent:<name>", "span:<spanId>" or "all". */
  id: string;
  kind: "single" | "combined";
  /** The agents the set corrects (a step correction names its span's agent when known). */
  agents: string[];
  spanIds: string[];
}

/** Where a planned re-run is: not sent or sent and not scored yet, scored, or lost (undeliverable, timed out, stopped). */
export type ReplayRunState = "pending" | "running" | "scored" | "failed" | "timed_out" | "stopped";

export interface ReplayRun {
  set: string;
  trial: number;
  state: ReplayRunState;
  /** The scored run's outcome; null when not scored or scored without one. */
  success: boolean | null;
}

export interface ReplaySetResult extends ReplaySet {
  trials: number;
  succeeded: number;
  /** Scored runs that failed. */
  failed: number;
  /** Scored runs without an outcome. */
  unknown: number;
  /** Runs that will not arrive: undeliverable, timed out or stopped. */
  lost: number;
  /** Not sent yet, or sent and not scored within their timeout. */
  waiting: number;
  /** succeeded / (succeeded + failed); null before any scored outcome. */
  successRate: number | null;
  /** Share of the scored outcomes that differ from the original trace's; null when the original's is unknown or none is scored. */
  flipRate: number | null;
  /** true: more than half the trials succeeded; false: they no longer can; null: still open. */
  majority: boolean | null;
}

export interface ReplayBlame {
  set: string;
  agents: string[];
  spanIds: string[];
  succeeded: number;
  trials: number;
}

export type ReplayVerdict = "decisive" | "shared" | "none" | "open";

export interface ReplayReport {
  /** Every planned run scored or lost. */
  complete: boolean;
  originalSuccess: boolean | null;
  sets: ReplaySetResult[];
  /** Single corrections a majority of whose trials succeed: the most successful first. */
  decisive: ReplayBlame[];
  /** Only the combination fixes it: no single correction has a majority, the combination has. */
  sharedBlame: ReplayBlame | null;
  /** Share of every scored re-run outcome (all sets) that differs from the original's. */
  flipRate: number | null;
  /** decisive / shared / none once the majorities that decide it are known, else open. */
  verdict: ReplayVerdict;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

function setResult(set: ReplaySet, trials: number, runs: readonly ReplayRun[], originalSuccess: boolean | null): ReplaySetResult {
  let succeeded = 0;
  let failed = 0;
  let unknown = 0;
  let lost = 0;
  let waiting = 0;
  for (const r of runs) {
    if (r.state === "scored") {
      if (r.success === true) succeeded++;
      else if (r.success === false) failed++;
      else unknown++;
    } else if (r.state === "pending" || r.state === "running") waiting++;
    else lost++;
  }
  // Only waiting runs can still succeed: lost ones (and trials never planned) cannot.
  const majority = succeeded * 2 > trials ? true : (succeeded + waiting) * 2 <= trials ? false : null;
  const flips = originalSuccess === null ? 0 : originalSuccess ? failed : succeeded;
  return {
    ...set,
    trials,
    succeeded,
    failed,
    unknown,
    lost,
    waiting,
    successRate: ratio(succeeded, succeeded + failed),
    flipRate: originalSuccess === null ? null : ratio(flips, succeeded + failed),
    majority,
  };
}

const blame = (s: ReplaySetResult): ReplayBlame => ({ set: s.id, agents: s.agents, spanIds: s.spanIds, succeeded: s.succeeded, trials: s.trials });

export function replayReport(input: { originalSuccess: boolean | null; trials: number; sets: readonly ReplaySet[]; runs: readonly ReplayRun[] }): ReplayReport {
  const sets = input.sets.map((s) =>
    setResult(
      s,
      input.trials,
      input.runs.filter((r) => r.set === s.id),
      input.originalSuccess,
    ),
  );
  const singles = sets.filter((s) => s.kind === "single");
  const combined = sets.find((s) => s.kind === "combined") ?? null;
  const decisive = singles
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.majority === true)
    .sort((a, b) => b.s.succeeded - a.s.succeeded || a.i - b.i)
    .map(({ s }) => blame(s));
  const singlesOut = singles.every((s) => s.majority === false);
  const shared = singlesOut && combined?.majority === true ? blame(combined) : null;
  let verdict: ReplayVerdict;
  if (decisive.length > 0) verdict = "decisive";
  else if (shared !== null) verdict = "shared";
  else if (singlesOut && (combined === null || combined.majority === false)) verdict = "none";
  else verdict = "open";
  const flips = sets.reduce((n, s) => n + (input.originalSuccess === null ? 0 : input.originalSuccess ? s.failed : s.succeeded), 0);
  const outcomes = sets.reduce((n, s) => n + s.succeeded + s.failed, 0);
  return {
    complete: sets.every((s) => s.waiting === 0),
    originalSuccess: input.originalSuccess,
    sets,
    decisive,
    sharedBlame: shared,
    flipRate: input.originalSuccess === null ? null : ratio(flips, outcomes),
    verdict,
  };
}

/** The attribution a replay records on the original trace: the top decisive correction, or the shared blame (no single agent); null when it names nothing yet. */
export interface ReplayPick {
  agent: string | null;
  spanId: string | null;
  explanation: string;
}

const named = (b: ReplayBlame) => [...b.agents, ...b.spanIds.map((s) => `step ${s}`)].join(" + ");

export function replayAttribution(report: ReplayReport): ReplayPick | null {
  const top = report.decisive[0];
  if (top !== undefined) {
    const others = report.decisive.slice(1).map(named);
    return {
      agent: top.agents.length === 1 ? (top.agents[0] as string) : null,
      spanId: top.spanIds.length === 1 ? (top.spanIds[0] as string) : null,
      explanation:
        `correcting ${named(top)} alone made ${top.succeeded} of ${top.trials} re-runs succeed` +
        (others.length > 0 ? `; also decisive: ${others.join(", ")}` : ""),
    };
  }
  const shared = report.sharedBlame;
  if (shared !== null) {
    return {
      agent: null,
      spanId: null,
      explanation: `shared blame: no correction alone fixed a majority of re-runs; all together (${named(shared)}) made ${shared.succeeded} of ${shared.trials} succeed`,
    };
  }
  return null;
}
