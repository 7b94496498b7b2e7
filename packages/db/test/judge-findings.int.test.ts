import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../src/client.ts";
import {
  compactScoreRollups,
  ensureProject,
  insertSpanBatch,
  insertVerdict,
  listJudgeAttributions,
  listVerdicts,
  persistTraceScores,
  rebuildScoreRollups,
  type Database,
} from "../src/index.ts";
import { verdictAsksAbout } from "../src/judges/findings.ts";
import { projectId, span, spanId, traceId } from "./fixtures.ts";
import { record } from "./score-record.ts";

/** A JudgeVerdictResult-shaped result (packages/contracts/src/judges.ts); the producer validates it before storing. */
function result(findings: { mode: string; step: number }[], attribution: { agent: string; step: number } | null = null) {
  return {
    kind: "mast-checklist",
    promptVersion: 1,
    provider: "openai",
    model: "m",
    findings: findings.map((f) => ({
      mode: f.mode,
      agent: "a",
      spanId: spanId(f.step + 1),
      stepIndex: f.step,
      evidence: "quote",
      explanation: "why",
      confidence: 0.5,
    })),
    attribution:
      attribution === null
        ? null
        : { method: "all-at-once", agent: attribution.agent, spanId: spanId(attribution.step + 1), stepIndex: attribution.step, explanation: "e" },
    outcome: null,
    omitted: [],
    rejected: [],
    selfPreferenceWarning: null,
  };
}

describe.each(testDatabases())("judge findings stored with their verdict on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  async function judgeRows(p: string): Promise<{ producer: string; mode: string; step: number }[]> {
    return rowsOf(
      await database.db.execute(sql`SELECT producer_id, mode, step_index FROM judge_findings WHERE project_id = ${p} ORDER BY producer_id, ord`),
    ).map((r) => ({ producer: String(r.producer_id), mode: String(r.mode), step: Number(r.step_index) }));
  }

  async function trace(): Promise<string> {
    const p = projectId();
    await ensureProject(database, p, "judge-findings");
    await insertSpanBatch(database, p, [span({ traceId: traceId(1), spanId: spanId(1) })]);
    return p;
  }

  /** The judge rollup's cells of the project after a compaction, as sorted JSON. */
  async function judgeCells(p: string): Promise<string[]> {
    await compactScoreRollups(database);
    const rows = rowsOf(
      await database.db.execute(sql`SELECT hour_ns::text, agent, kind, k1, k2, findings::int, traces::int, extra::int, failed_traces::int
        FROM score_judge_finding_hourly WHERE project_id = ${p} AND (findings <> 0 OR traces <> 0)`),
    );
    return rows.map((r) => JSON.stringify(r)).sort();
  }

  it.each([
    { fold: false, when: "still pending in the rollups" },
    { fold: true, when: "already folded into the rollups" },
  ])("judge verdicts on a scored trace $when keep the judge rollup equal to a rebuild", async ({ fold }) => {
    const p = await trace();
    await persistTraceScores(database, p, record(1, { findings: 1 }));
    if (fold) await compactScoreRollups(database);
    const key = { producerId: "judge.mast-checklist", producerVersion: 1, model: "judge-model", status: "succeeded" as const };
    await insertVerdict(database, p, traceId(1), { ...key, inputHash: "a", result: result([{ mode: "FM-2.2", step: 0 }]) });
    // A newer verdict replaces the judge's findings: the first one's cells must leave the rollup.
    await insertVerdict(database, p, traceId(1), {
      ...key,
      inputHash: "b",
      result: result([
        { mode: "FM-3.3", step: 1 },
        { mode: "FM-1.3", step: 0 },
      ]),
    });
    const maintained = await judgeCells(p);
    expect(maintained.join()).toContain("FM-3.3");
    expect(maintained.join()).not.toContain("FM-2.2");
    await rebuildScoreRollups(database, p);
    expect(await judgeCells(p)).toEqual(maintained);
  });

  it("makes the newest verdict of each judge current, findings and attribution included", async () => {
    const p = await trace();
    const key = { producerVersion: 1, model: "judge-model", status: "succeeded" as const };
    expect(
      await insertVerdict(database, p, traceId(1), {
        ...key,
        producerId: "judge.mast-checklist",
        inputHash: "a",
        result: result([
          { mode: "FM-2.2", step: 0 },
          { mode: "FM-1.3", step: 2 },
        ]),
      }),
    ).toBe(true);
    expect(
      await insertVerdict(database, p, traceId(1), {
        ...key,
        producerId: "judge.decisive-error-all-at-once",
        inputHash: "a",
        result: result([], { agent: "b", step: 3 }),
      }),
    ).toBe(true);
    expect(await judgeRows(p)).toEqual([
      { producer: "judge.mast-checklist", mode: "FM-2.2", step: 0 },
      { producer: "judge.mast-checklist", mode: "FM-1.3", step: 2 },
    ]);
    expect(await listJudgeAttributions(database, p, traceId(1))).toEqual([
      { judge: "judge.decisive-error-all-at-once", method: "all-at-once", agent: "b", spanId: spanId(4), stepIndex: 3, explanation: "e" },
    ]);
    // The same key again stores nothing and changes nothing.
    expect(await insertVerdict(database, p, traceId(1), { ...key, producerId: "judge.mast-checklist", inputHash: "a", result: result([]) })).toBe(false);
    expect(await judgeRows(p)).toHaveLength(2);
    // A new input hash: its verdict replaces the judge's findings; a failed one leaves none.
    await insertVerdict(database, p, traceId(1), { ...key, producerId: "judge.mast-checklist", inputHash: "b", result: result([{ mode: "FM-3.3", step: 1 }]) });
    expect(await judgeRows(p)).toEqual([{ producer: "judge.mast-checklist", mode: "FM-3.3", step: 1 }]);
    await insertVerdict(database, p, traceId(1), {
      producerId: "judge.mast-checklist",
      producerVersion: 1,
      model: "judge-model",
      inputHash: "c",
      status: "failed",
      result: { error: "no reply" },
    });
    expect(await judgeRows(p)).toEqual([]);
    // Every verdict stays in trace_verdicts.
    expect((await listVerdicts(database, p, traceId(1))).map((v) => v.inputHash).sort()).toEqual(["a", "a", "b", "c"]);
  });

  it("refuses a judge result that is not a JudgeVerdictResult, storing neither the verdict nor findings", async () => {
    const p = await trace();
    const bad = { ...result([{ mode: "FM-1.3", step: 0 }]), findings: [{ mode: "FM-9.9", stepIndex: 0 }] };
    await expect(
      insertVerdict(database, p, traceId(1), {
        producerId: "judge.mast-checklist",
        producerVersion: 1,
        model: "judge-model",
        inputHash: "a",
        status: "succeeded",
        result: bad,
      }),
    ).rejects.toMatchObject({ name: "PermanentError", code: "invalid_verdict" });
    expect(await listVerdicts(database, p, traceId(1))).toEqual([]);
    expect(await judgeRows(p)).toEqual([]);
  });

  it("stores the modes a verdict asked about; a verdict that does not say (or failed) stores null, read as every mode", async () => {
    const p = await trace();
    const key = { producerVersion: 1, model: "judge-model", inputHash: "a", status: "succeeded" as const };
    await insertVerdict(database, p, traceId(1), {
      ...key,
      producerId: "judge.handoff-preservation",
      result: { ...result([]), kind: "handoff-preservation", askedModes: ["FM-2.4"] },
    });
    await insertVerdict(database, p, traceId(1), { ...key, producerId: "judge.mast-checklist", result: result([]) });
    await insertVerdict(database, p, traceId(1), { ...key, producerId: "judge.outcome-rubric", status: "failed", result: { error: "no reply" } });
    const asked = rowsOf(
      await database.db.execute(sql`SELECT producer_id, asked_modes FROM judge_current_verdicts WHERE project_id = ${p} ORDER BY producer_id`),
    ).map((r) => [String(r.producer_id), r.asked_modes]);
    expect(asked).toEqual([
      ["judge.handoff-preservation", ["FM-2.4"]],
      ["judge.mast-checklist", null],
      ["judge.outcome-rubric", null],
    ]);
    expect(verdictAsksAbout(["FM-2.4"], "FM-2.4")).toBe(true);
    expect(verdictAsksAbout(["FM-2.4"], "FM-1.3")).toBe(false);
    expect(verdictAsksAbout(null, "FM-1.3")).toBe(true);
  });

  it("keeps a finding whose mode fits JudgeFinding's pattern but not the taxonomy (the rates list it apart)", async () => {
    const p = await trace();
    await insertVerdict(database, p, traceId(1), {
      producerId: "judge.mast-checklist",
      producerVersion: 1,
      model: "judge-model",
      inputHash: "a",
      status: "succeeded",
      result: result([{ mode: "FM-1.6", step: 0 }]),
    });
    expect(await judgeRows(p)).toEqual([{ producer: "judge.mast-checklist", mode: "FM-1.6", step: 0 }]);
  });

  it("leaves producers that are not judges to trace_verdicts alone", async () => {
    const p = await trace();
    expect(
      await insertVerdict(database, p, traceId(1), {
        producerId: "replay.counterfactual",
        producerVersion: 1,
        model: "judge-model",
        inputHash: "a",
        status: "succeeded",
        result: { anything: 1 },
      }),
    ).toBe(true);
    const current = rowsOf(await database.db.execute(sql`SELECT count(*)::int AS n FROM judge_current_verdicts WHERE project_id = ${p}`));
    expect(current[0]?.n).toBe(0);
  });
});
