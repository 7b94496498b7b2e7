/**
 * Group commit (score-writer.ts): sets written while a transaction is in flight wait for it and
 * go together; a second transaction starts beside it only once enough sets wait.
 */
import { scoreTrace, type TraceScoreRecord } from "@crux/core";
import { ensureProject, getTraceScores, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScoreWriter } from "../src/scoring/score-writer.ts";
import { reportTrace } from "./traces.ts";

const PROJECT = "score-writer";

function scoredTrace(n: number): TraceScoreRecord {
  const spans = reportTrace({ startMs: 1_750_000_000_000 + n * 60_000 });
  return scoreTrace({
    projectId: PROJECT,
    traceId: spans[0]!.traceId,
    version: 1,
    spans,
    config: {
      prices: [],
      agentContracts: [],
      handoffContracts: [],
      milestoneSet: null,
      configuredBaseline: null,
      coordinationWeights: null,
      repetitionK: null,
    },
    outcomeOverride: null,
    baselineRun: null,
    validateSchema: () => ({ valid: true, errors: [] }),
    evaluateMilestone: () => false,
  });
}

describe.each(testDatabases())("score writer on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
    await ensureProject(database, PROJECT, "score writer");
  });
  afterAll(async () => {
    await database.close();
  });

  const writeAll = (writer: ReturnType<typeof createScoreWriter>, records: TraceScoreRecord[]) =>
    Promise.all(records.map((record) => writer.write(PROJECT, { record, opts: { inputHash: null, agents: [], clearScoreRequest: null } })));

  it("writes sets that arrive while a transaction is in flight together, and overlaps a second one only once enough wait", async () => {
    const records = Array.from({ length: 6 }, (_, i) => scoredTrace(i));
    // All six in one turn: the first starts a transaction alone; the next four wait until the
    // fourth of them reaches overlapAt and a second transaction takes them; the sixth waits for
    // the first transaction to end. (Starting one per set up to maxInFlight made 1, 1, 1 and 3.)
    const writer = createScoreWriter(database, { maxInFlight: 3, overlapAt: 4 });
    expect(await writeAll(writer, records)).toEqual([true, true, true, true, true, true]);
    expect(writer.stats).toEqual({ batches: 3, sets: 6 });
    for (const record of records) expect((await getTraceScores(database, PROJECT, record.traceId))?.summary.version).toBe(1);
  });

  it("with fewer waiting sets than overlapAt, one transaction at a time", async () => {
    const records = Array.from({ length: 4 }, (_, i) => scoredTrace(10 + i));
    const writer = createScoreWriter(database, { maxInFlight: 3, overlapAt: 8 });
    expect(await writeAll(writer, records)).toEqual([true, true, true, true]);
    expect(writer.stats).toEqual({ batches: 2, sets: 4 });
  });
});
