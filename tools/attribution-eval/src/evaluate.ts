/**
 * One evaluation: every labelled log exported through the receiver as a
 * failed trace, its scoring awaited, its attribution (and the judges' picks)
 * read from the API, and each method tallied per set and subset next to the
 * content-blind floors of the same logs.
 */
import type { LabelledLog } from "./logs.ts";
import { toOtlp, type ConvertedLog } from "./otlp.ts";
import { FLOORS, calibration, emptyTally, executorSpeakers, floorPicks, tallyPick, type CalibrationBin, type Pick, type Tally } from "./score.ts";
import type { AttributionResponse, CruxClient, JudgeCallsResponse, VerdictsResponse } from "./service.ts";

export interface LabelledSet {
  name: string;
  logs: LabelledLog[];
}

interface JudgeRun {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  budgetUsd: number;
}

export interface EvalOptions {
  client: CruxClient;
  judge?: JudgeRun;
  /** Exports in flight at once. */
  concurrency?: number;
  /** Longest wait for every trace's scoring (and verdicts), ms. */
  timeoutMs?: number;
  /** Now, in ns since the epoch: the first log's spans start here. */
  nowNs: bigint;
  progress?: (line: string) => void;
}

export const CODE = "crux code (rank 1)";
const DECISIVE_JUDGES = ["judge.decisive-error-all-at-once", "judge.decisive-error-step-by-step"];

export interface GroupResult {
  set: string;
  subset: string;
  logs: number;
  stepLabelled: number;
  unmatchedLabels: number;
  /** Method → tally, Crux's methods first, then the floors. */
  methods: Map<string, Tally>;
  /** Rank-1 code picks that name an agent the log shows only running others' code. */
  executorFirst: number;
  calibration: CalibrationBin[];
}

interface LogOutcome {
  set: string;
  id: string;
  labelAgents: string[];
  labelStep: number | null;
  pick: Pick | null;
  reason: string | null;
}

export interface EvalResult {
  groups: GroupResult[];
  /** Each log's rank-1 code pick next to its label, in set order. */
  logs: LogOutcome[];
  judgeSpendUsd: number | null;
  /** Logs whose scoring (or verdicts) did not arrive before the deadline. */
  timedOut: number;
}

interface Scored {
  log: LabelledLog;
  set: string;
  picks: Map<string, Pick | null>;
  reason: string | null;
}

export async function evaluate(sets: LabelledSet[], o: EvalOptions): Promise<EvalResult> {
  const { client } = o;
  if (o.judge !== undefined) {
    await client.put("/judge-settings", {
      enabled: true,
      provider: "openai",
      model: o.judge.model,
      baseUrl: o.judge.baseUrl,
      apiKey: o.judge.apiKey,
      dailyBudgetUsd: o.judge.budgetUsd,
      kinds: ["decisive-error-all-at-once", "decisive-error-step-by-step"],
    });
  }
  const jobs: { set: string; log: LabelledLog; converted: ConvertedLog }[] = [];
  let at = o.nowNs - 3_600_000_000_000n;
  for (const s of sets) {
    for (const log of s.logs) {
      jobs.push({ set: s.name, log, converted: toOtlp(log, s.name, at) });
      at += BigInt(log.turns.length + 3) * 1_000_000n;
    }
  }
  await pool(jobs, o.concurrency ?? 4, (j) => client.export(j.converted.body));
  o.progress?.(`exported ${jobs.length} logs`);
  const deadline = Date.now() + (o.timeoutMs ?? 600_000);
  let timedOut = 0;
  const scored: Scored[] = [];
  await pool(jobs, o.concurrency ?? 4, async (j) => {
    const answer = await waitFor(deadline, async () => {
      const a = await client.get<AttributionResponse>(`/traces/${j.converted.traceId}/attribution`);
      if (a === undefined || !a.scored) return undefined;
      if (o.judge === undefined) return a;
      const v = await client.get<VerdictsResponse>(`/traces/${j.converted.traceId}/verdicts`);
      const done = new Set(v?.items.map((i) => i.producerId) ?? []);
      return DECISIVE_JUDGES.every((p) => done.has(p))
        ? ((await client.get<AttributionResponse>(`/traces/${j.converted.traceId}/attribution`)) ?? a)
        : undefined;
    });
    if (answer === undefined) timedOut++;
    const top = [...(answer?.items ?? [])].sort((x, y) => x.rank - y.rank)[0];
    scored.push({ log: j.log, set: j.set, picks: picksOf(j.converted, answer ?? null, o.judge !== undefined), reason: top?.reason ?? null });
    if (scored.length % 50 === 0) o.progress?.(`scored ${scored.length}/${jobs.length}`);
  });
  const order = new Map(jobs.map((j, i) => [j.converted.traceId, i]));
  const key = (s: Scored) => order.get(toOtlp(s.log, s.set, 0n).traceId) ?? 0;
  const logs = [...scored]
    .sort((a, b) => key(a) - key(b))
    .map((s) => ({ set: s.set, id: s.log.id, labelAgents: s.log.labelAgents, labelStep: s.log.labelStep, pick: s.picks.get(CODE) ?? null, reason: s.reason }));
  return { groups: group(scored), logs, judgeSpendUsd: o.judge === undefined ? null : await judgeSpend(client), timedOut };
}

function picksOf(converted: ConvertedLog, a: AttributionResponse | null, judged: boolean): Map<string, Pick | null> {
  const turnOf = (spanId: string | null): number | null => {
    const i = spanId === null ? -1 : converted.turnSpanIds.indexOf(spanId);
    return i < 0 ? null : i;
  };
  const picks = new Map<string, Pick | null>();
  const rows = [...(a?.items ?? [])].sort((x, y) => x.rank - y.rank);
  const first = rows[0];
  const top3 = [...new Set(rows.map((r) => r.agent).filter((x): x is string => x !== null))].slice(0, 3);
  picks.set(CODE, first === undefined ? null : { agent: first.agent, turn: turnOf(first.spanId), top3, confidence: first.confidence });
  if (judged) {
    for (const m of a?.methods ?? []) {
      if (m.source === "code") continue;
      picks.set(`judge ${m.method}`, m.pick === null ? null : { agent: m.pick.agent, turn: turnOf(m.pick.spanId) });
    }
    for (const name of ["judge all-at-once", "judge step-by-step"]) if (!picks.has(name)) picks.set(name, null);
  }
  return picks;
}

function group(scored: Scored[]): GroupResult[] {
  const keys = new Map<string, Scored[]>();
  for (const s of scored) {
    for (const key of [`${s.set}\u0000all`, ...(s.log.subset === "all" ? [] : [`${s.set}\u0000${s.log.subset}`])]) keys.set(key, [...(keys.get(key) ?? []), s]);
  }
  const results: GroupResult[] = [];
  for (const [key, xs] of [...keys.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const [set, subset] = key.split("\u0000") as [string, string];
    const methods = new Map<string, Tally>();
    const tally = (name: string) => methods.get(name) ?? (methods.set(name, emptyTally()).get(name) as Tally);
    let executorFirst = 0;
    for (const s of xs) {
      for (const [name, pick] of s.picks) tallyPick(tally(name), s.log, pick);
      const floors = floorPicks(s.log);
      for (const f of FLOORS) {
        if (f === "first recorded error" && !xs.some((x) => x.log.turns.some((t) => t.error))) continue;
        tallyPick(tally(f), s.log, floors[f]);
      }
      const code = s.picks.get(CODE);
      if (code?.agent != null && executorSpeakers(s.log.turns).has(code.agent)) executorFirst++;
    }
    results.push({
      set,
      subset,
      logs: xs.length,
      stepLabelled: xs.filter((s) => s.log.labelStep !== null).length,
      unmatchedLabels: xs.reduce((n, s) => n + s.log.unmatchedLabels.length, 0),
      methods,
      executorFirst,
      calibration: calibration(xs.flatMap((s) => (s.picks.get(CODE) == null ? [] : [{ log: s.log, pick: s.picks.get(CODE) as Pick }]))),
    });
  }
  return results;
}

async function judgeSpend(client: CruxClient): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const page: JudgeCallsResponse | undefined = await client.get<JudgeCallsResponse>(
      `/judge-calls?limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    for (const c of page?.items ?? []) total += c.costUsd ?? 0;
    cursor = page?.nextCursor ?? null;
  } while (cursor !== null);
  return total;
}

async function waitFor<T>(deadline: number, check: () => Promise<T | undefined>): Promise<T | undefined> {
  while (Date.now() < deadline) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  return undefined;
}

async function pool<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await run(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
