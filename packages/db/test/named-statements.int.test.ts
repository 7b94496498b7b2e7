/**
 * The ingest statement is prepared by name on each Postgres connection, unless
 * turned off for a pooler that cannot keep prepared statements. PGlite runs the
 * same text unnamed (in-process, no pool), single and chunked.
 */
import { testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import {
  agentMetrics,
  createDatabase,
  ensureProject,
  failureModeMetrics,
  insertSpanBatch,
  insertSpanBatchStatementName,
  persistTraceScores,
  type PostgresDatabase,
} from "../src/index.ts";
import { projectId, traceOf } from "./fixtures.ts";
import { record } from "./score-record.ts";

const [pglite] = testDatabases({ databaseUrl: undefined });
const postgres = testDatabases().find((d) => d.name === "postgres");

describe("ingest statement on PGlite", () => {
  it("stores a batch in one statement and a chunked batch in one transaction", async () => {
    const database = await pglite!.create();
    try {
      const project = projectId();
      await ensureProject(database, project, "pglite statement");
      expect((await insertSpanBatch(database, project, traceOf(1, 3))).inserted).toBe(3);
      expect((await insertSpanBatch(database, project, traceOf(2, 5), { chunkSize: 2 })).inserted).toBe(5);
      expect((await insertSpanBatch(database, project, traceOf(2, 5), { chunkSize: 2 })).inserted).toBe(0);
    } finally {
      await database.close();
    }
  });
});

if (postgres) {
  describe("named ingest statement on Postgres", () => {
    it.each([
      { named: true, prepared: 1 },
      { named: false, prepared: 0 },
    ])("namedStatements $named: $prepared prepared statement(s) on the connection, same rows stored", async ({ named, prepared }) => {
      const scratch = (await postgres.create()) as PostgresDatabase;
      // One connection, so the statement cache we inspect is the one the inserts used.
      const database = await createDatabase({ url: scratch.pool.options.connectionString!, poolSize: 1, namedStatements: named });
      try {
        const project = projectId();
        await ensureProject(database, project, "named statements");
        const first = await insertSpanBatch(database, project, traceOf(1, 3));
        const second = await insertSpanBatch(database, project, traceOf(2, 4));
        expect([first.inserted, second.inserted]).toEqual([3, 4]);
        const { rows } = await (database as PostgresDatabase).pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = $1",
          [insertSpanBatchStatementName],
        );
        expect(rows[0]!.n).toBe(prepared);
      } finally {
        await database.close();
        await scratch.close();
      }
    });

    it("score writes run their fixed statements unnamed (planned per run with their values), the cells right", async () => {
      const scratch = (await postgres.create()) as PostgresDatabase;
      // One connection: the statement cache inspected is the one the writes used.
      const database = (await createDatabase({ url: scratch.pool.options.connectionString!, poolSize: 1 })) as PostgresDatabase;
      try {
        const project = projectId();
        await persistTraceScores(database, project, record(1, { findings: 2 }));
        await persistTraceScores(database, project, record(1, { version: 2, tokens: 300, findings: 1 })); // a re-score: the old cells are taken out once folded
        await persistTraceScores(database, project, record(2));
        const { rows } = await database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements");
        expect(rows[0]!.n).toBe(0);
        const metrics = await agentMetrics(database, project, { fromNs: 0n, toNs: 10_000n }, {});
        expect(metrics.agents.map((a) => [a.agent, a.traces, a.totalTokens])).toEqual([["a", 2, 400]]);
        const modes = await failureModeMetrics(database, project, { fromNs: 0n, toNs: 10_000n }, { groupBy: "mode" });
        expect(modes.rates.find((r) => r.mode === "FM-1.3")?.numerator).toBe(1);
      } finally {
        await database.close();
        await scratch.close();
      }
    });
  });
}
