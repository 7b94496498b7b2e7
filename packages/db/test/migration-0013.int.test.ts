/**
 * Migration 0013 adds trace_findings.detector and fills it on rows written before, where the mode
 * has a single detector in the list; rows of modes several detectors report stay null (validation
 * cannot tell which one fired, docs/metrics.md §12), and a row that names its detector is kept.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { categoryOf, mastDetectors, mastModeIds, type TraceScoreRecord } from "@crux/core";
import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../src/client.ts";
import { persistTraceScores, type Database } from "../src/index.ts";
import { projectId, spanId, traceId } from "./fixtures.ts";

const statements = readFileSync(fileURLToPath(new URL("../../../migrations/0013_finding_detector.sql", import.meta.url)), "utf8").split(
  "--> statement-breakpoint",
);

/** The modes the detector list reports, each with its detectors: one finding of each mode, stamped with its first. */
const reported = mastModeIds
  .map((mode) => ({ mode, ids: mastDetectors.filter((d) => d.modes.some((m) => m.mode === mode)).map((d) => d.id) }))
  .filter((m) => m.ids.length > 0);

function record(n: number): TraceScoreRecord {
  const none = { value: null, observed: 10, baseline: null, source: "unknown" as const };
  return {
    traceId: traceId(n),
    version: 1,
    serviceName: "svc",
    startNs: 1_000n,
    endNs: 2_000n,
    run: {
      success: false,
      score: null,
      taskId: null,
      variant: null,
      isBaseline: false,
      experimentId: null,
      seed: null,
      trial: null,
      activeAgents: null,
      replayId: null,
    },
    totals: { inputTokens: 10, outputTokens: 0, cachedTokens: 0, totalTokens: 10, costUsd: 0.1, unpricedModels: [] },
    multiplier: { tokens: none, cost: none },
    coordination: { redundancy: null, ignoredHandoffs: null, roleViolations: null, score: null },
    communicationEfficiency: null,
    goalDrift: null,
    milestones: null,
    agents: [],
    findings: reported.map(({ mode, ids }, i) => ({
      mode,
      category: categoryOf(mode),
      agent: "lead",
      spanId: spanId(10 + i),
      stepIndex: i,
      source: "heuristic" as const,
      detector: ids[0]!,
      confidence: 0.5,
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

describe.each(testDatabases())("migration 0013 on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  const detectors = async (p: string, n: number) =>
    Object.fromEntries(
      rowsOf(await database.db.execute(sql`SELECT mode, detector FROM trace_findings WHERE project_id = ${p} AND trace_id = ${traceId(n)} ORDER BY mode`)).map(
        (r) => [String(r.mode), r.detector === null ? null : String(r.detector)],
      ),
    );

  it("names the detector of old rows whose mode has one detector, leaves the others null, keeps rows that name theirs", async () => {
    expect(statements).toHaveLength(2);
    const p = projectId();
    await persistTraceScores(database, p, record(1));
    await persistTraceScores(database, p, record(2));
    // Trace 1 as rows written before the column; trace 2 as the new build writes them.
    await database.db.execute(sql`UPDATE trace_findings SET detector = NULL WHERE project_id = ${p} AND trace_id = ${traceId(1)}`);
    const written = await detectors(p, 2);
    expect(written).toEqual(Object.fromEntries(reported.map(({ mode, ids }) => [mode, ids[0]])));

    await database.db.execute(sql.raw(statements[1]!));
    expect(await detectors(p, 1)).toEqual({
      "FM-1.1": "handoff-contracts",
      "FM-1.2": "role-contracts",
      "FM-1.3": "repetition",
      "FM-1.5": "termination",
      "FM-2.4": "handoff-contracts",
      "FM-2.5": "ignored-input",
      "FM-3.1": null,
      "FM-3.2": null,
      "FM-3.3": null,
    });
    expect(await detectors(p, 2)).toEqual(written);
  });
});
