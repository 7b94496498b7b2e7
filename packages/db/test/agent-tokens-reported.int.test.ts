/**
 * GET /metrics/agents says whether tracers reported tokens: an agent whose per-trace rows reported
 * none has null tokens and cost (unknown, not 0), and every row counts its rows without tokens.
 * The same answers from pending traces, delta rows, folded cells, a rebuild and the migration's backfill.
 */
import { readdirSync, readFileSync } from "node:fs";
import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentMetrics, compactScoreRollups, persistTraceScores, rebuildScoreRollups, type Database, type MetricsFilter } from "../src/index.ts";
import { projectId } from "./fixtures.ts";
import { record } from "./score-record.ts";

const HOUR = 3_600_000_000_000n;

/** Trace n with agents [name, tokens or null when the tracer reported none]. */
function traceWith(n: number, agents: [string, number | null][]) {
  const r = record(n);
  const [template] = r.agents;
  r.agents = agents.map(([agent, tokens]) => ({
    ...template!,
    agent,
    inputTokens: tokens ?? 0,
    tokensReported: tokens !== null,
    costUsd: tokens === null ? 0 : tokens / 1000,
  }));
  return r;
}

/** The new migration's hand-written backfill: the statements after its marker comment. */
function backfillStatements(): string[] {
  const dir = new URL("../../../migrations/", import.meta.url);
  const file = readdirSync(dir).find((f) => f.endsWith("_agent_tokens_unreported.sql"));
  const text = readFileSync(new URL(file!, dir), "utf8");
  const block = text.slice(text.indexOf("-- Hand-written backfill"));
  return block.split("--> statement-breakpoint").filter((s) => s.trim() !== "");
}

describe.each(testDatabases())("agent token reporting in window sums on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  const whole: MetricsFilter = { fromNs: 0n, toNs: HOUR }; // one whole hour: stored cells, delta rows and pending traces
  const edge: MetricsFilter = { fromNs: 1n, toNs: HOUR }; // a partial hour: computed from the base rows

  async function seeded(): Promise<string> {
    const p = projectId();
    // lead reported tokens on 1 and 2, not on 3; silent never did.
    await persistTraceScores(
      database,
      p,
      traceWith(1, [
        ["lead", 100],
        ["silent", null],
      ]),
    );
    await persistTraceScores(
      database,
      p,
      traceWith(2, [
        ["lead", 50],
        ["silent", null],
      ]),
    );
    await persistTraceScores(database, p, traceWith(3, [["lead", null]]));
    return p;
  }

  const answers = async (p: string) => Promise.all([whole, edge].map((f) => agentMetrics(database, p, f, { bucketNs: HOUR })));

  it("serves null tokens and cost for an agent no row reported tokens for, and counts the rows without", async () => {
    const p = await seeded();
    const [result] = await answers(p);
    const [lead, silent] = result!.agents;
    expect(lead).toMatchObject({ agent: "lead", traces: 3, totalTokens: 150, tokensReported: true, tokensNotReportedRows: 1, tokenShare: 1 });
    expect(silent).toEqual(
      expect.objectContaining({
        agent: "silent",
        traces: 2,
        inputTokens: null,
        outputTokens: null,
        cachedTokens: null,
        totalTokens: null,
        costUsd: null,
        tokensReported: false,
        tokensNotReportedRows: 2,
        tokenShare: null,
        costShare: null,
      }),
    );
    expect(result!.totals).toMatchObject({ agents: 2, traces: 3, totalTokens: 150, tokensReported: true, tokensNotReportedRows: 3 });
    expect(result!.series!.find((s) => s.agent === "silent")).toMatchObject({ totalTokens: null, tokensReported: false, tokensNotReportedRows: 2 });
    // A page after lead: the cursor keys on the stored sum, so silent (null tokens) still comes next.
    const first = await agentMetrics(database, p, whole, { limit: 1 });
    const next = await agentMetrics(database, p, whole, { limit: 1, cursor: first.nextCursor! });
    expect(next.agents.map((a) => a.agent)).toEqual(["silent"]);
  });

  it("gives the same answers pending, folded, rebuilt, and after the migration's backfill of folded cells", async () => {
    const p = await seeded();
    const pending = await answers(p);
    await compactScoreRollups(database);
    expect(await answers(p)).toEqual(pending);
    await rebuildScoreRollups(database, p);
    expect(await answers(p)).toEqual(pending);

    // Cells folded before the measure existed read 0 rows without tokens: silent then looks like 0 tokens.
    await database.db.execute(sql`UPDATE score_agent_hourly SET tokens_unreported_rows = 0`);
    await database.db.execute(sql`UPDATE score_agent_hourly_delta SET tokens_unreported_rows = 0`);
    const [stale] = await answers(p);
    expect(stale!.agents.find((a) => a.agent === "silent")).toMatchObject({ totalTokens: 0, tokensReported: true });
    // One more trace stays pending through the backfill: its fold counts it, the backfill must not.
    await persistTraceScores(database, p, traceWith(4, [["silent", null]]));
    for (const statement of backfillStatements()) await database.db.execute(sql.raw(statement));
    const [backfilled] = await answers(p);
    expect(backfilled!.agents.find((a) => a.agent === "silent")).toMatchObject({ totalTokens: null, tokensReported: false, tokensNotReportedRows: 3 });
    await compactScoreRollups(database);
    const folded = await answers(p);
    await rebuildScoreRollups(database, p);
    expect(await answers(p)).toEqual(folded);
  });
});
