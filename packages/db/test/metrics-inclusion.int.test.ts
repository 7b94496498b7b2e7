/**
 * Changing whether a project's experiment and replay runs count in production metrics applies to the
 * runs already stored: every metric moves at once, whether the runs were folded into the rollups or
 * still pending, and the rollups stay what a rebuild from the base rows gives.
 */
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import {
  agentMetrics,
  compactScoreRollups,
  ensureProject,
  failureModeMetrics,
  getExperimentSettings,
  persistTraceScores,
  putExperimentSettings,
  rebuildScoreRollups,
  successInputs,
  type Database,
  type MetricsFilter,
} from "../src/index.ts";
import { traces } from "../src/schema/index.ts";
import { projectId, traceId } from "./fixtures.ts";
import { record } from "./score-record.ts";

const window: MetricsFilter = { fromNs: 0n, toNs: 3_600_000_000_000n };

describe.each(testDatabases())("experiment runs in production metrics, switched for stored runs, on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  /** One production run, two experiment runs and a replay run, each with an FM-1.3 finding and 100 tokens. */
  async function seeded(): Promise<string> {
    const p = projectId();
    await persistTraceScores(database, p, record(1, { findings: 1 }));
    for (const n of [2, 3]) {
      const r = record(n, { findings: 1 });
      r.run = { ...r.run, experimentId: "exp", variant: "v", trial: n };
      await persistTraceScores(database, p, r);
    }
    const replay = record(4, { findings: 1 });
    replay.run = { ...replay.run, replayId: "rp" };
    await persistTraceScores(database, p, replay);
    return p;
  }

  async function counted(p: string) {
    const modes = await failureModeMetrics(database, p, window, { groupBy: "mode" });
    const agents = await agentMetrics(database, p, window, {});
    const success = await successInputs(database, p, window);
    return {
      traces: modes.scopeTraces,
      fm13: modes.rates.find((r) => r.mode === "FM-1.3")!.numerator,
      tokens: agents.totals.totalTokens,
      runs: success.runs,
    };
  }
  const only = (n: number) => ({ traces: n, fm13: n, tokens: 100 * n, runs: n });

  const setInclude = async (p: string, includeInMetrics: boolean) =>
    putExperimentSettings(database, p, { ...(await getExperimentSettings(database, p)), includeInMetrics });

  it.each([
    { folded: true, when: "after the runs were folded into the rollups" },
    { folded: false, when: "while the runs are still pending" },
  ])("opting in and out moves every metric at once, $when", async ({ folded }) => {
    const p = await seeded();
    if (folded) await compactScoreRollups(database);
    expect(await counted(p)).toEqual(only(1));

    await setInclude(p, true);
    expect(await counted(p)).toEqual(only(4));
    await compactScoreRollups(database);
    expect(await counted(p)).toEqual(only(4));
    await rebuildScoreRollups(database, p);
    expect(await counted(p)).toEqual(only(4));

    await setInclude(p, false);
    expect(await counted(p)).toEqual(only(1));
    await compactScoreRollups(database);
    expect(await counted(p)).toEqual(only(1));
    await rebuildScoreRollups(database, p);
    expect(await counted(p)).toEqual(only(1));
  });

  it("leaves the runs alone when the setting does not change, and another project's runs whatever it does", async () => {
    const p = await seeded();
    const other = await seeded();
    await compactScoreRollups(database);
    await setInclude(p, false);
    expect(await counted(p)).toEqual(only(1));
    await setInclude(p, true);
    expect(await counted(p)).toEqual(only(4));
    expect(await counted(other)).toEqual(only(1));
  });

  it("asks the score stage again for the switched runs, so a run now counted reaches the judge sampling", async () => {
    const p = await seeded();
    await ensureProject(database, p, p);
    const settled = (n: number) => ({
      projectId: p,
      traceId: traceId(n),
      startNs: 1_000n,
      endNs: 2_000n,
      spanCount: 1,
      errorCount: 0,
      llmCalls: 1,
      toolCalls: 0,
      rawInputTokens: 100,
      rawOutputTokens: 0,
      hasError: false,
      dirty: false,
      settleVersion: 1,
      spanSetHash: "frozen",
    });
    await database.db.insert(traces).values([1, 2, 4].map(settled));
    await setInclude(p, true);
    const requested = await database.db.select({ traceId: traces.traceId, at: traces.scoreRequestedAt }).from(traces).where(eq(traces.projectId, p));
    expect(Object.fromEntries(requested.map((r) => [r.traceId, r.at !== null]))).toEqual({ [traceId(1)]: false, [traceId(2)]: true, [traceId(4)]: true });
  });
});
