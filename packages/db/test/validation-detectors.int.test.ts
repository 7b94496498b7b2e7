/**
 * Validation per code detector (docs/metrics.md §12): next to the mode's aggregate code row (any
 * finding of the mode counts), one row per detector of the mode, flagged where a finding of the mode
 * names that detector. A trace whose findings of the mode were stored without a detector (scored
 * before findings named it) is left out of each detector's n and kept in the aggregate. Every figure
 * is worked out by hand in the comments.
 */
import { categoryOf, type Finding, type MastModeId, type TraceScoreRecord } from "@crux/core";
import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProject, insertSpanBatch, persistTraceScores, putTraceLabels, validationMetrics, type Database, type ModeAgreement } from "../src/index.ts";
import { projectId, span, spanId, traceId } from "./fixtures.ts";

function record(n: number, findings: [MastModeId, string][]): TraceScoreRecord {
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
    findings: findings.map(([mode, detector], i): Finding => ({
      mode,
      category: categoryOf(mode),
      agent: "lead",
      spanId: spanId(10 + i),
      stepIndex: i,
      source: "heuristic",
      detector,
      confidence: 0.5,
      evidence: `${detector} says so`,
    })),
    signals: [],
    errorPaths: [],
    attributions: [],
    handoffs: [],
    trajectories: [],
    flags: { orphans: 0, multipleRoots: false, clockSkew: 0 },
  } as TraceScoreRecord;
}

const IV = "inferred-verification";
const EP = "error-propagation";

/**
 * FM-3.2 labels and findings. 1..7 are scored with detectors; 8 and 9 were scored before findings named
 * their detector (their FM-3.2 rows have none); 10 is labelled but not scored.
 */
const traces: { n: number; label: boolean; findings: [MastModeId, string][]; scored?: false; old?: true }[] = [
  {
    n: 1,
    label: true,
    findings: [
      ["FM-3.2", IV],
      ["FM-3.2", EP],
      ["FM-1.3", "repetition"],
    ],
  },
  { n: 2, label: true, findings: [["FM-3.2", IV]] },
  { n: 3, label: true, findings: [["FM-3.2", EP]] },
  { n: 4, label: false, findings: [["FM-3.2", EP]] },
  { n: 5, label: false, findings: [] },
  { n: 6, label: false, findings: [] },
  { n: 7, label: true, findings: [] },
  { n: 8, label: true, findings: [["FM-3.2", IV]], old: true },
  { n: 9, label: false, findings: [["FM-3.2", EP]], old: true },
  { n: 10, label: true, findings: [], scored: false },
];

describe.each(testDatabases())("validation per code detector on $name", ({ create }) => {
  let database: Database;
  const p = projectId();
  let rows: ModeAgreement[];
  const row = (mode: string, source: string) => rows.find((m) => m.mode === mode && m.source === source);

  beforeAll(async () => {
    database = await create();
    await ensureProject(database, p, "validation per detector");
    for (const t of traces) {
      await insertSpanBatch(database, p, [span({ traceId: traceId(t.n), spanId: spanId(1) })]);
      if (t.scored !== false) await persistTraceScores(database, p, record(t.n, t.findings));
      // FM-1.3 labelled on 1 (present, found) and 5 (absent, not found).
      const modes: Record<string, boolean> = { "FM-3.2": t.label, ...(t.n === 1 || t.n === 5 ? { "FM-1.3": t.n === 1 } : {}) };
      await putTraceLabels(database, p, traceId(t.n), {
        modes,
        decisiveAgent: null,
        decisiveSpanId: null,
        decisiveStepIndex: null,
        note: null,
        labeller: "ana",
      });
    }
    // 8 and 9 as a build before the detector column stored them (the migration left multi-detector modes null).
    await database.db.execute(sql`UPDATE trace_findings SET detector = NULL WHERE project_id = ${p} AND trace_id IN (${traceId(8)}, ${traceId(9)})`);
    rows = (await validationMetrics(database, p, {}, { kappaBar: 0.4, minLabels: 7 })).modes;
  });
  afterAll(async () => {
    await database.close();
  });

  it("keeps the aggregate row: any FM-3.2 finding counts, old traces included", () => {
    // 1..9 scored; predicted 1, 2, 3, 4, 8, 9; labelled 1, 2, 3, 7, 8.
    // tp 4 (1, 2, 3, 8), fp 2 (4, 9), fn 1 (7), tn 2 (5, 6). pₒ = 6/9; pₑ = (6·5 + 3·4)/81 = 14/27;
    // κ = (18/27 − 14/27)/(13/27) = 4/13; precision 4/6, recall 4/5.
    const code = row("FM-3.2", "code")!;
    expect(code).toMatchObject({
      kind: "code",
      detectors: ["verification", IV, EP],
      n: 9,
      truePositives: 4,
      falsePositives: 2,
      falseNegatives: 1,
      trueNegatives: 2,
      validated: false,
      reason: "kappa 0.308 is under the bar of 0.4",
    });
    expect(code.kappa).toBeCloseTo(4 / 13, 12);
    expect(code.precision).toBeCloseTo(2 / 3, 12);
    expect(code.recall).toBeCloseTo(4 / 5, 12);
  });

  it("measures each detector alone on the traces that say which detector fired (1..7)", () => {
    // inferred-verification: predicted 1, 2; labelled 1, 2, 3, 7. tp 2, fp 0, fn 2 (3, 7), tn 3 (4, 5, 6).
    // pₒ = 5/7; pₑ = (2·4 + 5·3)/49 = 23/49; κ = (35 − 23)/(49 − 23) = 6/13; precision 1, recall 1/2.
    const iv = row("FM-3.2", `code.${IV}`)!;
    expect(iv).toMatchObject({
      kind: "code",
      detectors: [IV],
      n: 7,
      truePositives: 2,
      falsePositives: 0,
      falseNegatives: 2,
      trueNegatives: 3,
      precision: 1,
      recall: 0.5,
      validated: true,
      reason: null,
    });
    expect(iv.kappa).toBeCloseTo(6 / 13, 12);
    // error-propagation disagrees with it on 2, 3 and 4: predicted 1, 3, 4. tp 2 (1, 3), fp 1 (4), fn 2 (2, 7), tn 2 (5, 6).
    // pₒ = 4/7; pₑ = (3·4 + 4·3)/49 = 24/49; κ = (28 − 24)/(49 − 24) = 4/25; precision 2/3, recall 1/2.
    const ep = row("FM-3.2", `code.${EP}`)!;
    expect(ep).toMatchObject({
      detectors: [EP],
      n: 7,
      truePositives: 2,
      falsePositives: 1,
      falseNegatives: 2,
      trueNegatives: 2,
      recall: 0.5,
      validated: false,
    });
    expect(ep.kappa).toBeCloseTo(4 / 25, 12);
    expect(ep.precision).toBeCloseTo(2 / 3, 12);
    expect(ep.reason).toBe("kappa 0.160 is under the bar of 0.4");
    // verification fired nowhere: every prediction absent, so kappa 0 and no precision.
    expect(row("FM-3.2", "code.verification")).toMatchObject({
      n: 7,
      truePositives: 0,
      falsePositives: 0,
      falseNegatives: 4,
      trueNegatives: 3,
      kappa: 0,
      precision: null,
      recall: 0,
    });
  });

  it("lists the aggregate row, then one per detector of the mode in list order", () => {
    expect(rows.filter((m) => m.mode === "FM-3.2").map((m) => m.source)).toEqual(["code", "code.verification", `code.${IV}`, `code.${EP}`]);
    expect(rows.filter((m) => m.mode === "FM-3.3").map((m) => m.source)).toEqual(["code", "code.verification", `code.${IV}`]);
    // A mode with one detector: its detector row measures the same traces as the aggregate (1 tp, 5 tn).
    const { source: _a, detectors: _d, ...aggregate } = row("FM-1.3", "code")!;
    const { source: _b, detectors: own, ...alone } = row("FM-1.3", "code.repetition")!;
    expect(own).toEqual(["repetition"]);
    expect(alone).toEqual(aggregate);
    expect(aggregate).toMatchObject({ n: 2, truePositives: 1, trueNegatives: 1, validated: false, reason: "2 labelled traces; at least 7 needed" });
  });

  it("counts a re-scored old trace in its detector's row once its findings name the detector", async () => {
    await persistTraceScores(database, p, record(8, [["FM-3.2", IV]]));
    const again = (await validationMetrics(database, p, {}, { kappaBar: 0.4, minLabels: 7 })).modes;
    // 8 (labelled present) now counts as an inferred-verification true positive; 9 still cannot be told.
    expect(again.find((m) => m.mode === "FM-3.2" && m.source === `code.${IV}`)).toMatchObject({ n: 8, truePositives: 3, falseNegatives: 2 });
    expect(again.find((m) => m.mode === "FM-3.2" && m.source === `code.${EP}`)).toMatchObject({ n: 8, truePositives: 2, falseNegatives: 3 });
    expect(again.find((m) => m.mode === "FM-3.2" && m.source === "code")).toMatchObject({ n: 9, truePositives: 4, falsePositives: 2 });
  });
});
