/**
 * The readings alert rules are evaluated on (readAlertMetric, exampleTraceIds), over traces scored by
 * the worker's own stages, against hand-computed values. The report scenario: per run 9 spans
 * (planner 4, writer 3, reviewer 2), 1,800 input and 530 output tokens of gpt-4o-mini; a failing run's
 * save fails (1 writer span in error) and the reviewer approves anyway (FM-3.3, with FM-3.1: both FC3).
 */
import { JudgeVerdictResult } from "@crux/contracts";
import { ensureProject, exampleTraceIds, insertSpanBatch, insertVerdict, putTraceLabels, readAlertMetric, type Database } from "@crux/db";
import type { AlertMetric, AlertScope } from "@crux/core";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directStages, reportTrace } from "./traces.ts";

const PROJECT = "p-readings";
const HOUR = 3_600_000;

describe.each(testDatabases())("alert readings on $name", (db) => {
  let database: Database;
  const now = Date.now();
  const current = { fromMs: now - HOUR, toMs: now };
  const previous = { fromMs: now - 2 * HOUR, toMs: now - HOUR };
  const failing: string[] = [];
  let earlier = "";
  const read = (metric: AlertMetric, scope: AlertScope = {}, window = current) => readAlertMetric(database, PROJECT, metric, scope, window);

  beforeAll(async () => {
    database = await db.create();
    await ensureProject(database, PROJECT, PROJECT);
    const stages = directStages(database);
    const ingest = async (startMs: number, o: { success: boolean; saveFails?: boolean }) => {
      const spans = reportTrace({ startMs, ...o });
      await insertSpanBatch(database, PROJECT, spans);
      await stages.run({ projectId: PROJECT, traceId: spans[0]!.traceId });
      return spans[0]!.traceId;
    };
    for (let i = 0; i < 3; i++) failing.push(await ingest(now - 30 * 60_000 + i * 1_000, { success: false, saveFails: true }));
    for (let i = 0; i < 2; i++) await ingest(now - 20 * 60_000 + i * 1_000, { success: true });
    earlier = await ingest(now - 90 * 60_000, { success: false, saveFails: true });
    await stages.close();
  });
  afterAll(() => database.close());

  it("failure-mode and category rates, with numerator and denominator", async () => {
    expect(await read({ kind: "failure_mode_rate", mode: "FM-3.3" })).toEqual({ value: 3 / 5, numerator: 3, denominator: 5, samples: 5 });
    expect(await read({ kind: "failure_category_rate", category: "FC3" })).toEqual({ value: 3 / 5, numerator: 3, denominator: 5, samples: 5 });
    expect(await read({ kind: "failure_mode_rate", mode: "FM-3.3" }, {}, previous)).toEqual({ value: 1, numerator: 1, denominator: 1, samples: 1 });
    expect(await read({ kind: "failure_mode_rate", mode: "FM-3.3" }, { service: "another-crew" })).toEqual({
      value: null,
      numerator: 0,
      denominator: 0,
      samples: 0,
    });
  });

  it("success rate, error rate and per-trace tokens and cost, for the system and for one agent", async () => {
    expect(await read({ kind: "success_rate" })).toEqual({ value: 2 / 5, numerator: 2, denominator: 5, samples: 5 });
    expect(await read({ kind: "error_rate" })).toEqual({ value: 3 / 45, numerator: 3, denominator: 45, samples: 5 });
    expect(await read({ kind: "error_rate" }, { agent: "writer" })).toEqual({ value: 3 / 15, numerator: 3, denominator: 15, samples: 5 });
    expect(await read({ kind: "tokens_per_trace" })).toEqual({ value: 2_330, numerator: 11_650, denominator: 5, samples: 5 });
    expect(await read({ kind: "tokens_per_trace" }, { agent: "writer" })).toEqual({ value: 1_200, numerator: 6_000, denominator: 5, samples: 5 });
    const cost = await read({ kind: "cost_per_trace" });
    expect(cost.value).toBeCloseTo(1_800 * 0.15e-6 + 530 * 0.6e-6, 9);
    expect(cost.denominator).toBe(5);
  });

  it("a cost multiplier without any baseline has no value and no samples", async () => {
    expect(await read({ kind: "cost_multiplier" })).toEqual({ value: null, numerator: 0, denominator: 0, samples: 0 });
  });

  it("validatedOnly reads a code-only rate as it is: it is validated", async () => {
    expect(await read({ kind: "failure_mode_rate", mode: "FM-3.3", validatedOnly: true })).toEqual({ value: 3 / 5, numerator: 3, denominator: 5, samples: 5 });
  });

  it("validatedOnly decides on a judged rate only once the judge clears the configured bar", async () => {
    // Another project: 3 failing and 2 passing runs; a MAST checklist judge agrees with a person's labels on all 5
    // (FM-3.3 on the failing ones: kappa 1). Five labels are under the default minimum (20), not under a bar of 5.
    const judged = "p-readings-judged";
    await ensureProject(database, judged, judged);
    const stages = directStages(database);
    for (let i = 0; i < 5; i++) {
      const spans = reportTrace({ startMs: now - 30 * 60_000 + i * 1_000, success: i >= 3, saveFails: i < 3 });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(database, judged, spans);
      await stages.run({ projectId: judged, traceId });
      const findings =
        i < 3
          ? [
              {
                mode: "FM-3.3",
                agent: "reviewer",
                spanId: spans[1]!.spanId,
                stepIndex: 1,
                evidence: "approved",
                explanation: "approved a failed save",
                confidence: 0.8,
              },
            ]
          : [];
      const result = JudgeVerdictResult.parse({
        kind: "mast-checklist",
        promptVersion: 1,
        provider: "openai",
        model: "judge-model",
        findings,
        attribution: null,
        outcome: null,
        omitted: [],
        rejected: [],
        selfPreferenceWarning: null,
      });
      await insertVerdict(database, judged, traceId, {
        producerId: "judge.mast-checklist",
        producerVersion: 1,
        model: "judge-model",
        inputHash: "h",
        status: "succeeded",
        result,
      });
      const labels = { modes: { "FM-3.3": i < 3 }, decisiveAgent: null, decisiveSpanId: null, decisiveStepIndex: null, note: null, labeller: "ana" };
      await putTraceLabels(database, judged, traceId, labels);
    }
    await stages.close();
    const metric: AlertMetric = { kind: "failure_mode_rate", mode: "FM-3.3", validatedOnly: true };
    const withDefaultBar = await readAlertMetric(database, judged, metric, {}, current);
    expect(withDefaultBar).toEqual({ value: null, numerator: 3, denominator: 5, samples: 5 });
    const withBarOfFive = await readAlertMetric(database, judged, metric, {}, current, { kappaBar: 0.6, minLabels: 5 });
    expect(withBarOfFive).toEqual({ value: 3 / 5, numerator: 3, denominator: 5, samples: 5 });
  });

  it("example traces are the ones behind the reading, newest first", async () => {
    expect(await exampleTraceIds(database, PROJECT, { kind: "failure_mode_rate", mode: "FM-3.3" }, {}, current)).toEqual([...failing].reverse());
    expect(await exampleTraceIds(database, PROJECT, { kind: "success_rate" }, {}, previous)).toEqual([earlier]);
    expect(await exampleTraceIds(database, PROJECT, { kind: "error_rate" }, { agent: "reviewer" }, current)).toEqual([]);
  });
});
