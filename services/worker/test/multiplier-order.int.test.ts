/**
 * Cost multiplier no matter the order a baseline run and a multi-agent run of
 * the same task are scored in (hardening issue, item 7): multi-agent first,
 * baseline first, or both at once, the run's /scores read and the
 * /metrics/cost-multiplier aggregate give the same, known multiplier; a
 * baseline that stops being one is reflected at once too.
 */
import { ensureProject, getTraceScores, insertSpanBatch, multiplierMetrics, setOutcomeOverride, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { directStages, reportTrace } from "./traces.ts";

const PROJECT = "p-mult";
const TASK = "heat-pumps"; // the task id reportTrace tags its root with

async function setup(database: Database) {
  await ensureProject(database, PROJECT, PROJECT);
  const startMs = Date.now() - 60_000;
  // The single-agent baseline skips the reviewer (fewer tokens); the multi-agent run has all three agents.
  const baseline = reportTrace({ startMs, success: true, noReviewer: true });
  const multi = reportTrace({ startMs: startMs + 1_000, success: true });
  await insertSpanBatch(database, PROJECT, baseline);
  await insertSpanBatch(database, PROJECT, multi);
  const baselineId = baseline[0]!.traceId;
  await setOutcomeOverride(database, PROJECT, baselineId, { isBaseline: true });
  // settle then score (after an outcome change the settle is a no-op and the score stage re-scores).
  const stages = directStages(database);
  return { baselineId, multiId: multi[0]!.traceId, settle: (traceId: string) => stages.run({ projectId: PROJECT, traceId }) };
}

async function multipliers(database: Database, multiId: string, baselineId: string) {
  const run = (await getTraceScores(database, PROJECT, multiId))!.summary;
  const base = (await getTraceScores(database, PROJECT, baselineId))!.summary;
  const now = BigInt(Date.now()) * 1_000_000n;
  const hour = 3_600_000_000_000n;
  const metrics = await multiplierMetrics(database, PROJECT, { fromNs: now - hour, toNs: now + hour }, {});
  const task = metrics.tasks.find((t) => t.taskId === TASK)!;
  return {
    expected: { tokens: run.totalTokens / base.totalTokens, cost: run.costUsd! / base.costUsd! },
    read: { tokens: run.tokenMultiplier, tokenSource: run.tokenBaselineSource, cost: run.costMultiplier, costSource: run.costBaselineSource },
    task: { runs: task.runs, baselineRuns: task.baselineRuns, tokens: task.tokens.value, tokenSource: task.tokens.source, cost: task.cost.value },
    overall: { tokens: metrics.overall.tokens.value, cost: metrics.overall.cost.value },
  };
}

const orders: { name: string; run: (s: Awaited<ReturnType<typeof setup>>) => Promise<void> }[] = [
  {
    name: "multi-agent run first",
    run: async (s) => {
      await s.settle(s.multiId);
      await s.settle(s.baselineId);
    },
  },
  {
    name: "baseline first",
    run: async (s) => {
      await s.settle(s.baselineId);
      await s.settle(s.multiId);
    },
  },
  {
    name: "both at once",
    run: async (s) => {
      await Promise.all([s.settle(s.multiId), s.settle(s.baselineId)]);
    },
  },
];

describe.each(testDatabases())("cost multiplier on $name", ({ create }) => {
  it.each(orders)("is known and the same in the read and the aggregate: $name", async ({ run }) => {
    const database = await create();
    try {
      const s = await setup(database);
      await run(s);
      const m = await multipliers(database, s.multiId, s.baselineId);
      expect(m.expected.tokens).toBeGreaterThan(1.2); // the reviewer's tokens: a real difference
      expect(m.read.tokenSource).toBe("baseline_run");
      expect(m.read.costSource).toBe("baseline_run");
      expect(m.read.tokens).toBeCloseTo(m.expected.tokens, 12);
      expect(m.read.cost).toBeCloseTo(m.expected.cost, 12);
      expect(m.task).toMatchObject({ runs: 1, baselineRuns: 1, tokenSource: "baseline_run" });
      expect(m.task.tokens).toBeCloseTo(m.expected.tokens, 12);
      expect(m.task.cost).toBeCloseTo(m.expected.cost, 12);
      expect(m.overall.tokens).toBeCloseTo(m.expected.tokens, 12);
      expect(m.overall.cost).toBeCloseTo(m.expected.cost, 12);
    } finally {
      await database.close();
    }
  });

  it("reflects a baseline run that stops being one at once, in the read and the aggregate", async () => {
    const database = await create();
    try {
      const s = await setup(database);
      await s.settle(s.baselineId);
      await s.settle(s.multiId);
      await setOutcomeOverride(database, PROJECT, s.baselineId, { isBaseline: false });
      await s.settle(s.baselineId);
      const run = (await getTraceScores(database, PROJECT, s.multiId))!.summary;
      expect(run).toMatchObject({ tokenMultiplier: null, tokenBaselineSource: "unknown", costMultiplier: null });
      const now = BigInt(Date.now()) * 1_000_000n;
      const metrics = await multiplierMetrics(database, PROJECT, { fromNs: now - 3_600_000_000_000n, toNs: now + 3_600_000_000_000n }, {});
      expect(metrics.overall.tokens).toMatchObject({ value: null, source: "unknown", runsWithBaseline: 0 });
      expect(metrics.overall.runs).toBe(2);
    } finally {
      await database.close();
    }
  });
});
