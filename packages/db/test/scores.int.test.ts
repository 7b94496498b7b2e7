import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBaselineRun, getTraceScores, listTraceFindings, persistTraceScores, type Database } from "../src/index.ts";
import { projectId, traceId } from "./fixtures.ts";
import { record } from "./score-record.ts";

describe.each(testDatabases())("score persistence on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  it("concurrent persists of one trace never mix sets and never clash on keys", async () => {
    const p = projectId();
    await Promise.all(Array.from({ length: 6 }, (_, i) => persistTraceScores(database, p, record(1, { version: 1, findings: i + 1, tokens: 100 + i }))));
    const stored = await getTraceScores(database, p, traceId(1));
    const findings = await listTraceFindings(database, p, traceId(1), { limit: 500 });
    // Whichever writer won, its finding count matches its summary row.
    expect(findings.items).toHaveLength(stored!.summary.findingCount);
    expect(stored!.summary.totalTokens).toBe(100 + stored!.summary.findingCount - 1);
    expect(stored!.agents).toHaveLength(1);
  });

  it("findBaselineRun averages the baseline-tagged runs of the task; none gives null", async () => {
    const p = projectId();
    await persistTraceScores(database, p, record(1, { taskId: "t", isBaseline: true, tokens: 100, cost: 0.1 }));
    await persistTraceScores(database, p, record(2, { taskId: "t", isBaseline: true, tokens: 300, cost: null }));
    await persistTraceScores(database, p, record(3, { taskId: "t", isBaseline: false, tokens: 10_000 }));
    await persistTraceScores(database, p, record(4, { taskId: "u", isBaseline: false }));
    const found = await findBaselineRun(database, p, "t");
    expect(found).toMatchObject({ tokens: 200, runs: 2 });
    expect(found!.costUsd).toBeCloseTo(0.1, 12); // mean over runs with a known cost
    expect(await findBaselineRun(database, p, "u")).toBeNull();
    expect(await findBaselineRun(database, projectId(), "t")).toBeNull();
  });
});
