/**
 * What each method names on a labelled log, and how often it is right: Crux's
 * methods (read from the API) next to content-blind floors computed on the
 * same log. A pick names an agent and a turn (0-based); agent accuracy counts
 * a pick right when its agent is among the labelled agents (case ignored),
 * step accuracy when its turn is the labelled step (logs with a step label
 * only), top-3 when any of the method's first three agents is labelled.
 */
import type { LabelledLog, Turn } from "./logs.ts";

export interface Pick {
  agent: string | null;
  turn: number | null;
  /** Distinct agents of the method's first three ranks (rank 1 first); [] when the method ranks only one. */
  top3?: string[];
  /** Rank-1 confidence, when the method states one. */
  confidence?: number;
}

/** Expected accuracy of a random pick (the random-speaker floor), instead of one pick. */
export interface Expected {
  agent: number;
  step: number | null;
  top3: number;
}

export const FLOORS = [
  "random speaker (expected)",
  "last speaker",
  "last non-executor turn",
  "most frequent speaker",
  "second turn",
  "first recorded error",
] as const;
export type Floor = (typeof FLOORS)[number];

/** How the output of running code or a tool starts (exit codes, tracebacks, tool observations): a message that opens so. */
const EXECUTION_OUTPUT =
  /^\W{0,40}(exit ?code\s*[:=]?\s*-?\d+|execution (result|output|logs|succeeded|failed)|code output\b|observation:|traceback \(most recent call last\)|stdout:|stderr:|\$ \S|>>> \S)/i;
const TOOL_ROLES = new Set(["tool", "function", "ipython"]);

/** A speaker whose every turn is shaped like execution output, or whose role says tool. */
export function executorSpeakers(turns: Turn[]): Set<string> {
  const bySpeaker = new Map<string, Turn[]>();
  for (const t of turns) bySpeaker.set(t.agent, [...(bySpeaker.get(t.agent) ?? []), t]);
  const out = new Set<string>();
  for (const [speaker, ts] of bySpeaker) {
    if (ts.every((t) => (t.role !== null && TOOL_ROLES.has(t.role.toLowerCase())) || EXECUTION_OUTPUT.test(t.content.slice(0, 600)))) out.add(speaker);
  }
  return out;
}

const choose = (n: number, k: number): number => {
  if (k > n) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
};

/** The content-blind floors on one log. "first recorded error" is null on a log that records no error. */
export function floorPicks(log: LabelledLog): Record<Floor, Pick | Expected | null> {
  const turns = log.turns;
  const lastIndex = turns.length - 1;
  const at = (i: number): Pick => ({ agent: turns[i]?.agent ?? null, turn: i });
  const executors = executorSpeakers(turns);
  let lastAuthor = lastIndex;
  while (lastAuthor > 0 && executors.has(turns[lastAuthor]?.agent as string)) lastAuthor--;
  const counts = new Map<string, number>();
  for (const t of turns) counts.set(t.agent, (counts.get(t.agent) ?? 0) + 1);
  // Ties go to the first to speak (Map keeps first-seen order; the sort is stable).
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
  const firstError = turns.findIndex((t) => t.error);
  const speakers = [...counts.keys()];
  const labelled = new Set(log.labelAgents.map((a) => a.toLowerCase()));
  const hits = speakers.filter((s) => labelled.has(s.toLowerCase())).length;
  const random: Expected = {
    agent: hits / speakers.length,
    step: log.labelStep === null ? null : 1 / turns.length,
    top3: 1 - choose(speakers.length - hits, Math.min(3, speakers.length)) / choose(speakers.length, Math.min(3, speakers.length)),
  };
  return {
    "random speaker (expected)": random,
    "last speaker": at(lastIndex),
    "last non-executor turn": at(lastAuthor),
    "most frequent speaker": { agent: frequent, turn: turns.findIndex((t) => t.agent === frequent) },
    "second turn": at(Math.min(1, lastIndex)),
    "first recorded error": firstError < 0 ? null : at(firstError),
  };
}

export interface Tally {
  logs: number;
  agentRight: number;
  /** Logs with a step label the method answered on or not. */
  stepLogs: number;
  stepRight: number;
  top3Logs: number;
  top3Right: number;
  /** Logs the method named no agent on. */
  unanswered: number;
}

export const emptyTally = (): Tally => ({ logs: 0, agentRight: 0, stepLogs: 0, stepRight: 0, top3Logs: 0, top3Right: 0, unanswered: 0 });

const isExpected = (p: Pick | Expected): p is Expected => typeof (p as Expected).agent === "number";

/** Adds one log's pick to a tally; a null pick counts as a wrong, unanswered one. */
export function tallyPick(t: Tally, log: LabelledLog, pick: Pick | Expected | null): void {
  const labelled = new Set(log.labelAgents.map((a) => a.toLowerCase()));
  t.logs++;
  if (log.labelStep !== null) t.stepLogs++;
  if (pick === null || (!isExpected(pick) && pick.agent === null)) {
    t.unanswered++;
    return;
  }
  if (isExpected(pick)) {
    t.agentRight += pick.agent;
    if (pick.step !== null) t.stepRight += pick.step;
    t.top3Logs++;
    t.top3Right += pick.top3;
    return;
  }
  if (labelled.has((pick.agent as string).toLowerCase())) t.agentRight++;
  if (log.labelStep !== null && pick.turn === log.labelStep) t.stepRight++;
  if (pick.top3 !== undefined) {
    t.top3Logs++;
    if (pick.top3.some((a) => labelled.has(a.toLowerCase()))) t.top3Right++;
  }
}

export interface CalibrationBin {
  /** Lower edge of the confidence bin (bins of 0.1). */
  from: number;
  picks: number;
  agentRight: number;
  stepRight: number;
  stepLogs: number;
}

/** How often a rank-1 pick at each stated confidence names a labelled agent (and step). */
export function calibration(entries: { log: LabelledLog; pick: Pick }[]): CalibrationBin[] {
  const bins = new Map<number, CalibrationBin>();
  for (const { log, pick } of entries) {
    if (pick.confidence === undefined || pick.agent === null) continue;
    const from = Math.min(9, Math.floor(pick.confidence * 10)) / 10;
    const bin = bins.get(from) ?? { from, picks: 0, agentRight: 0, stepRight: 0, stepLogs: 0 };
    bin.picks++;
    if (log.labelAgents.some((a) => a.toLowerCase() === (pick.agent as string).toLowerCase())) bin.agentRight++;
    if (log.labelStep !== null) {
      bin.stepLogs++;
      if (pick.turn === log.labelStep) bin.stepRight++;
    }
    bins.set(from, bin);
  }
  return [...bins.values()].sort((a, b) => a.from - b.from);
}
