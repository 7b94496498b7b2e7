import { readFileSync } from "node:fs";
import type { Finding, MastModeId, TraceScoreRecord } from "@crux/core";
import { categoryOf } from "@crux/core";
import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../src/client.ts";
import { lockTraces } from "../src/rollups/pending.ts";
import {
  agentMetrics,
  compactScoreRollups,
  failureModeMetrics,
  multiplierMetrics,
  persistTraceScores,
  persistTraceScoreSets,
  rebuildScoreRollups,
  successInputs,
  type Database,
  type MetricsFilter,
} from "../src/index.ts";
import { projectId, traceId } from "./fixtures.ts";

const HOUR = 3_600_000_000_000n;
const T0 = 1_750_000_000n * 1_000_000_000n - ((1_750_000_000n * 1_000_000_000n) % HOUR); // an hour boundary
const MIN = 60_000_000_000n;

interface Spec {
  n: number;
  at: bigint;
  service?: string | null;
  success?: boolean | null;
  taskId?: string | null;
  baseline?: boolean;
  agents: [string, number, number | null][]; // agent, tokens, cost
  findings?: [MastModeId, string | null, Finding["source"]][];
  multiplier?: number | null;
  milestones?: boolean[];
  version?: number;
}

function rec(s: Spec): TraceScoreRecord {
  const tokens = s.agents.reduce((t, [, n]) => t + n, 0);
  const m = s.multiplier ?? null;
  const passed = s.milestones;
  return {
    traceId: traceId(s.n),
    version: s.version ?? 1,
    serviceName: s.service === undefined ? "svc-a" : s.service,
    startNs: s.at,
    endNs: s.at + 1000n,
    run: {
      success: s.success === undefined ? true : s.success,
      score: null,
      taskId: s.taskId ?? null,
      variant: null,
      isBaseline: s.baseline ?? false,
      experimentId: null,
      seed: null,
      trial: null,
      activeAgents: null,
      replayId: null,
    },
    totals: { inputTokens: tokens, outputTokens: 0, cachedTokens: 0, totalTokens: tokens, costUsd: 0.1, unpricedModels: [] },
    multiplier: {
      tokens:
        m === null
          ? { value: null, observed: tokens, baseline: null, source: "unknown" }
          : { value: m, observed: tokens, baseline: tokens / m, source: "baseline_run" },
      cost: { value: null, observed: 0.1, baseline: null, source: "unknown" },
    },
    coordination: { redundancy: null, ignoredHandoffs: null, roleViolations: null, score: null },
    communicationEfficiency: null,
    goalDrift: null,
    milestones:
      passed === undefined
        ? null
        : {
            setId: "ms",
            partialCredit: passed.filter(Boolean).length / passed.length,
            fullSuccess: passed.every(Boolean),
            furthestIndex: passed.lastIndexOf(true),
            detail: passed.map((p, i) => ({ id: `m${i}`, passed: p, spanId: null, agent: null })),
          },
    agents: s.agents.map(([agent, n, cost]) => ({
      agent,
      agentId: null,
      parentAgent: null,
      spans: 2,
      llmCalls: 1,
      toolCalls: 1,
      errors: n % 2,
      inputTokens: n,
      outputTokens: 1,
      cachedTokens: 0,
      tokensReported: true,
      costUsd: cost,
      tokenShare: 1,
      wallMs: 1,
      milestoneCredit: null,
    })),
    findings: (s.findings ?? []).map(([mode, agent, source], i) => ({
      mode,
      category: categoryOf(mode),
      agent,
      spanId: i.toString(16).padStart(16, "0"),
      stepIndex: i,
      source,
      detector: "test",
      confidence: 1,
      evidence: "e",
    })),
    signals: [],
    errorPaths: [],
    attributions: [],
    handoffs: [],
    trajectories: [],
    flags: { orphans: 0, multipleRoots: false, clockSkew: 0 },
  } as TraceScoreRecord;
}

// Spread over hours 0..6 of T0, with traces inside the partial edge hours (0 and 5) of the window below.
const specs: Spec[] = [
  { n: 1, at: T0 + 10n * MIN, agents: [["lead", 100, 0.01]], findings: [["FM-1.3", "lead", "heuristic"]] }, // before the window
  {
    n: 2,
    at: T0 + 30n * MIN,
    success: false,
    taskId: "t1",
    agents: [
      ["lead", 200, 0.02],
      ["search", 50, null],
    ],
    findings: [
      ["FM-1.3", "lead", "heuristic"],
      ["FM-1.5", "lead", "contract"],
      ["FM-3.2", "search", "heuristic"],
    ],
    multiplier: 2,
    milestones: [true, false],
  },
  {
    n: 3,
    at: T0 + HOUR + 5n * MIN,
    taskId: "t1",
    agents: [["lead", 300, 0.03]],
    findings: [["FM-1.3", null, "heuristic"]],
    multiplier: 4,
    milestones: [true, true],
  },
  {
    n: 4,
    at: T0 + 2n * HOUR,
    service: null,
    success: null,
    agents: [
      ["search", 70, 0.001],
      ["verify", 30, 0.002],
    ],
    findings: [
      ["FM-2.5", "verify", "contract"],
      ["FM-2.5", "verify", "contract"],
    ],
  },
  { n: 5, at: T0 + 3n * HOUR + 59n * MIN, service: "svc-b", success: false, taskId: "t2", baseline: true, agents: [["lead", 40, 0.004]], multiplier: null },
  {
    n: 6,
    at: T0 + 4n * HOUR + 20n * MIN,
    taskId: "t2",
    agents: [
      ["lead", 90, 0.009],
      ["search", 10, 0.001],
    ],
    findings: [["FM-1.5", "search", "heuristic"]],
    multiplier: 3,
    milestones: [false, false],
  },
  { n: 7, at: T0 + 5n * HOUR + 10n * MIN, service: "svc-b", agents: [["verify", 20, null]], findings: [["FM-3.2", "verify", "contract"]] },
  { n: 8, at: T0 + 5n * HOUR + 50n * MIN, agents: [["lead", 11, 0.5]] }, // after the window
];

// from 00:20 to 05:40: partial hours 0 and 5, whole hours 1..4.
const window: MetricsFilter = { fromNs: T0 + 20n * MIN, toNs: T0 + 5n * HOUR + 40n * MIN };

const rollupTableNames = ["score_agent_hourly", "score_trace_hourly", "score_task_hourly", "score_milestone_hourly", "score_finding_hourly"];

async function pendingTraces(database: Database, p: string): Promise<number> {
  const [row] = rowsOf(await database.db.execute(sql`SELECT count(*)::int AS n FROM score_rollup_pending WHERE project_id = ${p}`));
  return Number(row!.n);
}

async function pendingDeltas(database: Database, p: string): Promise<number> {
  let n = 0;
  for (const t of [...rollupTableNames, "score_judge_finding_hourly"]) {
    const [row] = rowsOf(await database.db.execute(sql`SELECT count(*)::int AS n FROM ${sql.identifier(`${t}_delta`)} WHERE project_id = ${p}`));
    n += Number(row!.n);
  }
  return n;
}

/** The stored cells, after folding the pending deltas into them. */
async function rollupTables(database: Database, p: string): Promise<Record<string, unknown[]>> {
  await compactScoreRollups(database);
  const out: Record<string, unknown[]> = {};
  for (const t of rollupTableNames) {
    const rows = rowsOf(await database.db.execute(sql`SELECT * FROM ${sql.identifier(t)} WHERE project_id = ${p}`));
    // Cells a re-score emptied stay as all-zero rows; a rebuild does not create them.
    const nonZero = rows.filter((r) =>
      Object.entries(r).some(
        ([k, v]) =>
          !["project_id", "hour_ns", "service_name", "agent", "kind", "k1", "k2", "task_key", "has_task", "milestone_id"].includes(k) && Number(v) !== 0,
      ),
    );
    out[t] = nonZero
      .map((r) =>
        JSON.stringify(
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" || (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v)) ? Number(v) : v]),
          ),
        ),
      )
      .sort();
  }
  return out;
}

async function allMetrics(database: Database, p: string, f: MetricsFilter) {
  return {
    modes: await failureModeMetrics(database, p, f, { groupBy: "mode" }),
    categories: await failureModeMetrics(database, p, f, { groupBy: "category" }),
    byAgent: await failureModeMetrics(database, p, f, { groupBy: "agent" }),
    byService: await failureModeMetrics(database, p, f, { groupBy: "service" }),
    agents: await agentMetrics(database, p, f, { bucketNs: HOUR }),
    multiplier: await multiplierMetrics(database, p, f, {}),
    success: await successInputs(database, p, f),
  };
}

describe.each(testDatabases())("score rollups on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  /** Trace 6 as first scored: another hour, service, agents, findings and outcome than its re-score in specs. */
  const firstTrace6 = rec({
    n: 6,
    at: T0 + HOUR + 30n * MIN,
    service: "svc-b",
    success: false,
    taskId: "t9",
    agents: [["solo", 500, 0.3]],
    findings: [["FM-2.1", "solo", "contract"]],
    milestones: [true],
  });

  /** With `foldFirst`, trace 6's first set is folded into the rollups before its re-score (which then takes its old cells out). */
  async function seeded(opts: { foldFirst?: boolean } = {}): Promise<string> {
    const p = projectId();
    // Trace 6 first lands elsewhere (other hour, service, agents, findings, outcome), then is re-scored.
    await persistTraceScores(database, p, firstTrace6);
    if (opts.foldFirst === true) {
      await compactScoreRollups(database);
      expect(await pendingTraces(database, p)).toBe(0);
    }
    for (const s of specs) await persistTraceScores(database, p, rec({ ...s, version: s.n === 6 ? 2 : 1 }));
    // A stale version changes nothing.
    await persistTraceScores(database, p, rec({ n: 6, at: T0, agents: [["stale", 1, 1]], version: 1 }));
    return p;
  }

  it.each([
    { foldFirst: false, how: "re-scored while pending" },
    { foldFirst: true, how: "re-scored after its first set was folded" },
  ])("score writes keep every rollup equal to a rebuild from the base rows (trace 6 $how)", async ({ foldFirst }) => {
    const p = await seeded({ foldFirst });
    const maintained = await rollupTables(database, p);
    expect(maintained.score_agent_hourly!.length).toBeGreaterThan(5);
    expect(JSON.stringify(maintained)).not.toContain("solo");
    await rebuildScoreRollups(database, p);
    expect(await rollupTables(database, p)).toEqual(maintained);
  });

  it("a score write lists its traces as pending, and a re-score of a folded trace appends its old cells negated", async () => {
    const p = projectId();
    await persistTraceScores(database, p, firstTrace6);
    expect(await pendingTraces(database, p)).toBe(1);
    expect(await pendingDeltas(database, p)).toBe(0); // no cell is computed at write time
    await compactScoreRollups(database);
    expect([await pendingTraces(database, p), await pendingDeltas(database, p)]).toEqual([0, 0]);
    await persistTraceScores(database, p, rec({ ...specs[5]!, version: 2 }));
    expect(await pendingTraces(database, p)).toBe(1);
    const [solo] = rowsOf(
      await database.db.execute(sql`SELECT sum(usage_rows)::int AS n FROM score_agent_hourly_delta WHERE project_id = ${p} AND agent = 'solo'`),
    );
    expect(solo!.n).toBe(-1);
  });

  it("metrics read pending traces and delta rows not folded yet: the same answers before and after compaction, which empties both", async () => {
    const p = await seeded({ foldFirst: true });
    expect(await pendingTraces(database, p)).toBe(8);
    expect(await pendingDeltas(database, p)).toBeGreaterThan(5); // trace 6's first set, taken out
    const before = await allMetrics(database, p, window);
    const aligned = await allMetrics(database, p, { fromNs: T0, toNs: T0 + 6n * HOUR }); // whole hours only: no cell from the edges
    const result = await compactScoreRollups(database);
    expect(result.foldedTraces).toBeGreaterThanOrEqual(8);
    expect(result.moved).toBeGreaterThan(10);
    expect(result.pending).toBe(false);
    expect([await pendingTraces(database, p), await pendingDeltas(database, p)]).toEqual([0, 0]);
    expect(await allMetrics(database, p, window)).toEqual(before);
    expect(await allMetrics(database, p, { fromNs: T0, toNs: T0 + 6n * HOUR })).toEqual(aligned);
    expect(aligned.modes.scopeTraces).toBe(7); // the 8 traces but 5, the baseline run
  });

  it("compaction in small batches, bounded per run and run twice at once, folds every trace and delta row exactly once", async () => {
    const p = await seeded({ foldFirst: true });
    const traces = await pendingTraces(database, p);
    const bounded = await compactScoreRollups(database, { batchTraces: 2, maxTraces: 2, batchRows: 2, maxRows: 2 });
    expect(bounded.pending).toBe(true);
    expect(await pendingTraces(database, p)).toBeLessThan(traces);
    expect(await pendingTraces(database, p)).toBeGreaterThan(0);
    expect(await pendingDeltas(database, p)).toBeGreaterThan(0);
    const [a, b] = await Promise.all([
      compactScoreRollups(database, { batchTraces: 3, batchRows: 3 }),
      compactScoreRollups(database, { batchTraces: 3, batchRows: 3 }),
    ]);
    expect(a.pending || b.pending).toBe(false);
    await compactScoreRollups(database); // whatever a concurrent run folded into deltas after the other one's pass
    expect([await pendingTraces(database, p), await pendingDeltas(database, p)]).toEqual([0, 0]);
    const maintained = await rollupTables(database, p);
    await rebuildScoreRollups(database, p);
    expect(await rollupTables(database, p)).toEqual(maintained);
  });

  it("a fold waits for a writer holding one of its traces (the trace lock every writer takes)", async () => {
    const p = projectId();
    await persistTraceScores(database, p, firstTrace6);
    let folded = false;
    let fold: Promise<unknown> = Promise.resolve();
    await database.db.transaction(async (tx) => {
      await lockTraces(tx, p, [traceId(6)]);
      fold = compactScoreRollups(database).then(() => (folded = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(folded).toBe(false);
    });
    await fold;
    expect(folded).toBe(true);
    expect(await pendingTraces(database, p)).toBe(0);
  });

  it("score writes racing compactions: every trace counted once, as a rebuild counts it", async () => {
    const p = projectId();
    // Rounds of re-scores (hours, agents and outcomes move each round), each racing two small-batch compactions.
    const rounds = 10;
    for (let round = 1; round <= rounds; round++) {
      await Promise.all([
        ...specs.map((s) =>
          persistTraceScores(
            database,
            p,
            rec({ ...s, version: round, at: s.at + BigInt(round % 2) * HOUR, success: round % 2 === 0, agents: [[`a${round % 3}`, round * 10, 0.1]] }),
          ),
        ),
        compactScoreRollups(database, { batchTraces: 1 }),
        compactScoreRollups(database, { batchTraces: 3 }),
      ]);
    }
    const maintained = await rollupTables(database, p);
    expect([await pendingTraces(database, p), await pendingDeltas(database, p)]).toEqual([0, 0]);
    // Only the last round's agent is left: every earlier set was taken out of the cells it had been folded into.
    expect(new Set(maintained.score_agent_hourly!.map((c) => (JSON.parse(c as string) as { agent: string }).agent))).toEqual(new Set([`a${rounds % 3}`]));
    await rebuildScoreRollups(database, p);
    expect(await rollupTables(database, p)).toEqual(maintained);
  });

  it("sets written together in one transaction give the rollups and rows that one-by-one writes give", async () => {
    const one = await seeded();
    const batched = projectId();
    // The same history, in batches: first writes of traces 6 and 99, then every spec (trace 6 re-scored) and a stale set of trace 99.
    await persistTraceScoreSets(database, batched, [{ record: firstTrace6 }, { record: rec({ n: 99, at: T0, agents: [["early", 5, 0.5]], version: 3 }) }]);
    const written = await persistTraceScoreSets(database, batched, [
      ...specs.map((s) => ({ record: rec({ ...s, version: s.n === 6 ? 2 : 1 }) })),
      { record: rec({ n: 99, at: T0, agents: [["stale", 1, 1]], version: 2 }) },
    ]);
    expect(written).toEqual([...specs.map(() => true), false]);
    const maintained = await rollupTables(database, batched);
    expect(JSON.stringify(maintained)).not.toContain("solo");
    expect(JSON.stringify(maintained)).not.toContain("stale");
    await rebuildScoreRollups(database, batched);
    expect(await rollupTables(database, batched)).toEqual(maintained);
    // Apart from trace 99 (only in the batched project), the rows are those of the one-by-one project.
    const scores = async (p: string) =>
      rowsOf(
        await database.db.execute(
          sql`SELECT trace_id, version, total_tokens, service_name FROM trace_scores WHERE project_id = ${p} AND trace_id <> ${traceId(99)} ORDER BY trace_id`,
        ),
      );
    expect(await scores(batched)).toEqual(await scores(one));
    await expect(
      persistTraceScoreSets(database, batched, [{ record: rec({ n: 1, at: T0, agents: [] }) }, { record: rec({ n: 1, at: T0, agents: [] }) }]),
    ).rejects.toThrow(/one set per trace/);
  });

  it("migration 0007's backfill of the multiplier inputs gives what the rollup cells give", async () => {
    const p = await seeded();
    const maintained = await rollupTables(database, p);
    await database.db.execute(sql`UPDATE score_task_hourly SET token_sum = 0, cost_sum = 0, cost_n = 0 WHERE project_id = ${p}`);
    await database.db.execute(
      sql`UPDATE score_trace_hourly SET notask_runs = 0, notask_token_sum = 0, notask_cost_sum = 0, notask_cost_n = 0 WHERE project_id = ${p}`,
    );
    expect(await rollupTables(database, p)).not.toEqual(maintained);
    const backfill = readFileSync(new URL("../../../migrations/0007_multiplier_inputs_backfill.sql", import.meta.url), "utf8");
    for (const statement of backfill.split("--> statement-breakpoint")) await database.db.execute(sql.raw(statement));
    expect(await rollupTables(database, p)).toEqual(maintained);
  });

  it("window answers from rollups plus partial edge hours equal direct aggregation over base rows", async () => {
    const p = await seeded();
    const got = await allMetrics(database, p, window);
    const direct = async (q: ReturnType<typeof sql>) => rowsOf(await database.db.execute(q))[0]!;
    // System metrics leave the baseline run (trace 5) out: the direct aggregation does too.
    const system = sql`trace_id NOT IN (SELECT trace_id FROM trace_scores WHERE project_id = ${p} AND is_baseline)`;
    const w = sql`project_id = ${p} AND start_ns >= ${window.fromNs.toString()}::bigint AND start_ns < ${window.toNs.toString()}::bigint AND ${system}`;

    const scope = await direct(sql`SELECT count(*)::int AS n, count(*) FILTER (WHERE success = false)::int AS failed FROM trace_scores WHERE ${w}`);
    expect(scope).toEqual({ n: 5, failed: 1 }); // traces 2..7 but 5, the baseline run; 1 (00:10) and 8 (05:50) fall outside
    expect(got.modes.scopeTraces).toBe(scope.n);
    expect(got.modes.failed.traces).toBe(scope.failed);

    const perMode = rowsOf(
      await database.db.execute(sql`SELECT mode, count(*) FILTER (WHERE first_of_mode)::int AS n FROM trace_findings WHERE ${w} GROUP BY mode`),
    );
    for (const r of perMode) expect(got.modes.rates.find((x) => x.mode === r.mode)?.numerator).toBe(r.n);
    expect(got.modes.rates.find((x) => x.mode === "FM-2.5")?.numerator).toBe(1); // two findings, one trace
    expect(got.categories.rates.find((x) => x.mode === "FC1")?.numerator).toBe(3);
    const sources = rowsOf(
      await database.db.execute(
        sql`SELECT mode, source, count(*)::int AS findings, count(DISTINCT trace_id)::int AS traces FROM trace_findings WHERE ${w} GROUP BY 1, 2 ORDER BY 1, 2`,
      ),
    );
    expect(got.modes.sources).toEqual(sources.map((r) => ({ ...r, validated: null, validationReason: null })));

    const perAgent = rowsOf(
      await database.db.execute(
        sql`SELECT agent, count(*)::int AS d, sum(input_tokens + output_tokens)::float8 AS tokens, coalesce(sum(cost_usd), 0)::float8 AS cost, (count(*) - count(cost_usd))::int AS unpriced FROM trace_agent_usage WHERE ${w} GROUP BY agent ORDER BY 3 DESC, 1`,
      ),
    );
    expect(got.agents.agents.map((a) => [a.agent, a.traces, a.totalTokens, a.unpricedRows])).toEqual(perAgent.map((r) => [r.agent, r.d, r.tokens, r.unpriced]));
    perAgent.forEach((r, i) => expect(got.agents.agents[i]!.costUsd).toBeCloseTo(Number(r.cost), 12));
    const distinct = await direct(sql`SELECT count(DISTINCT trace_id)::int AS n FROM trace_agent_usage WHERE ${w}`);
    expect(got.agents.totals.traces).toBe(distinct.n);
    const series = rowsOf(
      await database.db.execute(
        sql`SELECT agent, (start_ns - ${window.fromNs.toString()}::bigint) / ${HOUR.toString()}::bigint AS b, sum(input_tokens + output_tokens)::float8 AS tokens FROM trace_agent_usage WHERE ${w} GROUP BY 1, 2 ORDER BY 2, 1`,
      ),
    );
    expect(got.agents.series!.map((s) => [s.agent, String((s.bucketStartNs - window.fromNs) / HOUR), s.totalTokens])).toEqual(
      series.map((r) => [r.agent, String(r.b), r.tokens]),
    );

    // From an hour boundary the series reads hourly cells too.
    const aligned = { ...window, fromNs: T0 + HOUR };
    const alignedSeries = (await agentMetrics(database, p, aligned, { bucketNs: HOUR })).series!;
    const wa = sql`project_id = ${p} AND start_ns >= ${aligned.fromNs.toString()}::bigint AND start_ns < ${aligned.toNs.toString()}::bigint AND ${system}`;
    const alignedDirect = rowsOf(
      await database.db.execute(
        sql`SELECT agent, (start_ns - ${aligned.fromNs.toString()}::bigint) / ${HOUR.toString()}::bigint AS b, sum(input_tokens + output_tokens)::float8 AS tokens, count(*)::int AS n FROM trace_agent_usage WHERE ${wa} GROUP BY 1, 2 ORDER BY 2, 1`,
      ),
    );
    expect(alignedSeries.map((s) => [s.agent, String((s.bucketStartNs - aligned.fromNs) / HOUR), s.totalTokens, s.traces])).toEqual(
      alignedDirect.map((r) => [r.agent, String(r.b), r.tokens, r.n]),
    );
    expect(alignedSeries.length).toBeGreaterThan(3);

    const denominators = rowsOf(await database.db.execute(sql`SELECT agent, count(*)::int AS d FROM trace_agent_usage WHERE ${w} GROUP BY 1`));
    for (const r of got.byAgent.rates) expect(r.denominator).toBe(denominators.find((d) => d.agent === r.group)?.d);
    expect(got.byAgent.rates.map((r) => `${r.group}/${r.mode}=${r.numerator}`)).toEqual([
      "lead/FM-1.3=1",
      "lead/FM-1.5=1",
      "search/FM-1.5=1",
      "search/FM-3.2=1",
      "verify/FM-2.5=1",
      "verify/FM-3.2=1",
    ]);
    expect(got.byService.rates.map((r) => `${r.group}/${r.mode}=${r.numerator}/${r.denominator}`)).toEqual([
      "null/FM-2.5=1/1",
      "svc-a/FM-1.3=2/3",
      "svc-a/FM-1.5=2/3",
      "svc-a/FM-3.2=1/3",
      "svc-b/FM-3.2=1/1", // svc-b's other trace, 5, is the baseline run: not the system's
    ]);

    // Multipliers are measured when read against each task's current baseline runs (the stored ones are ignored):
    // t2's run (100 tokens) against its baseline run (40); t1 has no baseline, so unknown.
    const mult = await direct(sql`SELECT count(*) FILTER (WHERE NOT s.is_baseline)::int AS runs, count(DISTINCT s.task_id)::int AS tasks,
      avg(s.total_tokens / b.tokens) FILTER (WHERE NOT s.is_baseline)::float8 AS value
      FROM (SELECT * FROM trace_scores WHERE ${w}) s
      LEFT JOIN (SELECT task_id, avg(total_tokens)::float8 AS tokens FROM trace_scores WHERE project_id = ${p} AND is_baseline GROUP BY 1) b ON b.task_id = s.task_id`);
    expect(got.multiplier.overall).toMatchObject({ runs: mult.runs, baselineRuns: 1, tasks: mult.tasks });
    expect(got.multiplier.overall.tokens.value).toBeCloseTo(Number(mult.value), 12);
    expect(got.multiplier.overall.tokens.value).toBeCloseTo(2.5, 12);
    expect(got.multiplier.tasks.map((t) => [t.taskId, t.runs, t.baselineRuns, t.tokens.value, t.tokens.source])).toEqual([
      ["t1", 2, 0, null, "unknown"],
      ["t2", 1, 1, 2.5, "baseline_run"],
    ]);

    // Success counts the system's runs: baseline-tagged runs (trace 5) are left out.
    const outcomes = await direct(
      sql`SELECT count(*) FILTER (WHERE success IS NOT NULL AND NOT is_baseline)::int AS runs, count(*) FILTER (WHERE success AND NOT is_baseline)::int AS ok, avg(milestone_partial_credit)::float8 AS credit FROM trace_scores WHERE ${w}`,
    );
    expect(got.success).toMatchObject({ runs: outcomes.runs, successfulRuns: outcomes.ok, runsWithoutOutcome: 1, baselineRuns: 1 });
    expect(got.success.milestones.meanPartialCredit).toBeCloseTo(Number(outcomes.credit), 12);
    expect(got.success.milestones.perMilestone).toEqual([
      { id: "m0", traces: 3, passed: 2 },
      { id: "m1", traces: 3, passed: 1 },
    ]);
  });

  it("a baseline run with milestones, an agent and a finding stays out of every system metric, folded or not", async () => {
    const p = projectId();
    const at = T0 + HOUR;
    await persistTraceScores(database, p, rec({ n: 1, at, success: true, taskId: "t", agents: [["lead", 100, 0.01]], milestones: [true, true] }));
    await persistTraceScores(
      database,
      p,
      rec({
        n: 2,
        at,
        success: true,
        taskId: "t",
        baseline: true,
        agents: [["solo", 50, 0.005]],
        findings: [["FM-1.3", "solo", "heuristic"]],
        milestones: [true, false],
      }),
    );
    const f: MetricsFilter = { fromNs: T0, toNs: T0 + 3n * HOUR };
    for (const folded of [false, true]) {
      if (folded) await compactScoreRollups(database);
      const success = await successInputs(database, p, f);
      expect(success).toMatchObject({ runs: 1, baselineRuns: 1 });
      // The milestone block counts the system's run only (it counted the baseline run too).
      expect(success.milestones).toMatchObject({ traces: 1, meanPartialCredit: 1, fullSuccessRate: 1 });
      expect(success.milestones.perMilestone).toEqual([
        { id: "m0", traces: 1, passed: 1 },
        { id: "m1", traces: 1, passed: 1 },
      ]);
      const modes = await failureModeMetrics(database, p, f, { groupBy: "mode" });
      expect(modes).toMatchObject({ scopeTraces: 1, baselineRuns: 1 });
      expect(modes.rates.find((r) => r.mode === "FM-1.3")).toMatchObject({ numerator: 0, denominator: 1 });
      const agents = await agentMetrics(database, p, f, {});
      expect(agents.agents.map((a) => [a.agent, a.tokenShare])).toEqual([["lead", 1]]);
      expect(agents.totals).toMatchObject({ agents: 1, inputTokens: 100 });
    }
  });

  it("an agent filter scopes traces to the agent and counts its own findings", async () => {
    const p = await seeded();
    const f = { ...window, agent: "search" };
    const modes = await failureModeMetrics(database, p, f, { groupBy: "mode" });
    expect(modes.scopeTraces).toBe(3); // traces 2, 4, 6
    expect(modes.failed.traces).toBe(1);
    expect(modes.rates.filter((r) => r.numerator > 0).map((r) => r.mode)).toEqual(["FM-1.5", "FM-3.2"]);
    const cats = await failureModeMetrics(database, p, f, { groupBy: "category" });
    expect(cats.rates.find((r) => r.mode === "FC1")?.numerator).toBe(1);
    const agents = await agentMetrics(database, p, f, {});
    expect(agents.agents.map((a) => [a.agent, a.traces, a.totalTokens])).toEqual([["search", 3, 133]]);
    const mult = await multiplierMetrics(database, p, f, {});
    expect(mult.overall).toMatchObject({ runs: 3, baselineRuns: 0, tasks: 2 });
    const success = await successInputs(database, p, f);
    expect(success).toMatchObject({ runs: 2, successfulRuns: 1, runsWithoutOutcome: 1 });
  });
});
