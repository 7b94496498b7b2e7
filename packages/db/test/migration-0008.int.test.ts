/**
 * Migration 0008 recomputes the outcome counts of existing rollup cells so
 * the success rate leaves out baseline-tagged runs: cells written with the old
 * definition (baseline runs counted) equal a rebuild after it runs.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TraceScoreRecord } from "@crux/core";
import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../src/client.ts";
import { compactScoreRollups, persistTraceScores, rebuildScoreRollups, successInputs, type Database } from "../src/index.ts";
import { projectId, traceId } from "./fixtures.ts";

const HOUR = 3_600_000_000_000n;
const T0 = 1_750_000_000n * 1_000_000_000n - ((1_750_000_000n * 1_000_000_000n) % HOUR);
const migrationSql = readFileSync(fileURLToPath(new URL("../../../migrations/0008_success_excludes_baselines.sql", import.meta.url)), "utf8");

function rec(n: number, at: bigint, success: boolean | null, taskId: string, isBaseline: boolean): TraceScoreRecord {
  const none = { value: null, observed: 10, baseline: null, source: "unknown" as const };
  return {
    traceId: traceId(n),
    version: 1,
    serviceName: "svc",
    startNs: at,
    endNs: at + 1000n,
    run: { success, score: null, taskId, variant: null, isBaseline, experimentId: null, seed: null, trial: null, activeAgents: null, replayId: null },
    totals: { inputTokens: 10, outputTokens: 0, cachedTokens: 0, totalTokens: 10, costUsd: 0.1, unpricedModels: [] },
    multiplier: { tokens: none, cost: none },
    coordination: { redundancy: null, ignoredHandoffs: null, roleViolations: null, score: null },
    communicationEfficiency: null,
    goalDrift: null,
    milestones: null,
    agents: [],
    findings: [],
    signals: [],
    errorPaths: [],
    attributions: [],
    handoffs: [],
    trajectories: [],
    flags: { orphans: 0, multipleRoots: false, clockSkew: 0 },
  } as TraceScoreRecord;
}

async function cells(database: Database, p: string) {
  const q = (t: string) => database.db.execute(sql`SELECT * FROM ${sql.identifier(t)} WHERE project_id = ${p} ORDER BY hour_ns`);
  const norm = (rows: Record<string, unknown>[]) =>
    rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])))).sort();
  return { trace: norm(rowsOf(await q("score_trace_hourly"))), task: norm(rowsOf(await q("score_task_hourly"))) };
}

describe.each(testDatabases())("migration 0008 on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  it("cells counting baseline outcomes (the old definition) are recomputed to what a rebuild gives", async () => {
    const p = projectId();
    await persistTraceScores(database, p, rec(1, T0, false, "A", false));
    await persistTraceScores(database, p, rec(2, T0 + 60_000_000_000n, true, "A", true));
    await persistTraceScores(database, p, rec(3, T0 + HOUR, null, "B", true));
    await persistTraceScores(database, p, rec(4, T0 + HOUR, true, "B", false));
    await compactScoreRollups(database); // the cells as 0008 found them: no delta rows existed before 0012
    const expected = await cells(database, p);
    const window = { fromNs: T0, toNs: T0 + 2n * HOUR };
    expect(await successInputs(database, p, window)).toMatchObject({ runs: 2, successfulRuns: 1, runsWithoutOutcome: 0, baselineRuns: 2 });

    // What the previous definition stored: baseline runs counted in the outcome columns.
    await database.db.execute(
      sql`UPDATE score_trace_hourly SET outcome_runs = outcome_runs + 1, outcome_ok = outcome_ok + 1 WHERE project_id = ${p} AND hour_ns = ${T0.toString()}::bigint`,
    );
    await database.db.execute(
      sql`UPDATE score_trace_hourly SET outcome_unknown = outcome_unknown + 1 WHERE project_id = ${p} AND hour_ns = ${(T0 + HOUR).toString()}::bigint`,
    );
    await database.db.execute(
      sql`UPDATE score_task_hourly SET outcome_n = outcome_n + 1, outcome_ok = outcome_ok + 1 WHERE project_id = ${p} AND task_key = 'A'`,
    );
    expect(await successInputs(database, p, window)).toMatchObject({ runs: 3, successfulRuns: 2, runsWithoutOutcome: 1 });
    expect(await cells(database, p)).not.toEqual(expected);

    for (const statement of migrationSql.split("--> statement-breakpoint")) await database.db.execute(sql.raw(statement));
    expect(await cells(database, p)).toEqual(expected);
    await rebuildScoreRollups(database, p);
    expect(await cells(database, p)).toEqual(expected);
    expect(await successInputs(database, p, window)).toMatchObject({ runs: 2, successfulRuns: 1, runsWithoutOutcome: 0, baselineRuns: 2 });
  });
});
