import { buildTraceView, prepareTrace, runTagsOf, scorePreparedTrace, defaultPriceTable, type ScoringConfig } from "@crux/core";
import { afterAll, describe, expect, it } from "vitest";
import { createMilestoneEvaluator, type MilestoneEvaluatorOptions, type MilestoneExpressionEvaluator } from "../src/milestones/milestone-evaluator.ts";
import { createSchemaValidator } from "../src/scoring/schema-validator.ts";
import { recordingLog, reportTrace } from "./traces.ts";

const spans = reportTrace({ startMs: Date.UTC(2026, 0, 1) });
const t = prepareTrace(spans);
const view = buildTraceView(t, runTagsOf(t, null));
const saveSpan = spans.find((s) => s.toolName === "save_file");

const ctx = { projectId: "p" };
const evaluators: MilestoneExpressionEvaluator[] = [];
afterAll(async () => {
  for (const e of evaluators) await e.close();
});
function evaluator(opts: Omit<MilestoneEvaluatorOptions, "log"> = {}) {
  const { log, warnings } = recordingLog();
  const e = createMilestoneEvaluator({ log, threads: 1, ...opts });
  evaluators.push(e);
  return { e, warnings };
}

describe("JSONata milestone evaluator", () => {
  it("passes truthy results and cites the span an expression returns", async () => {
    const { e, warnings } = evaluator();
    const evaluate = await e.prepare(
      ['spans[tool = "save_file" and $not(isError)]', '$count(steps[agent = "reviewer"]) > 0', 'spans[tool = "deploy"]', 'run.taskId = "heat-pumps"'],
      view,
      ctx,
    );
    expect(evaluate('spans[tool = "save_file" and $not(isError)]', t)).toEqual({ passed: true, spanId: saveSpan?.spanId });
    expect(evaluate('$count(steps[agent = "reviewer"]) > 0', t)).toBe(true);
    expect(evaluate('spans[tool = "deploy"]', t)).toBe(false);
    expect(evaluate('run.taskId = "heat-pumps"', t)).toBe(true);
    expect(evaluate("never prepared", t)).toBe(false);
    expect(warnings).toEqual([]);
  });

  it("counts expressions that do not compile, throw or run away as not passed, with a warning each", async () => {
    const { e, warnings } = evaluator({ limits: { timeoutMs: 500, maxDepth: 200, maxSequence: 10_000 } });
    const broken = ["spans[", '$error("boom")', "($f := function($n){ $f($n + 1) }; $f(0))"];
    const evaluate = await e.prepare(broken, view, ctx);
    for (const x of broken) expect(evaluate(x, t)).toBe(false);
    expect(warnings.map((w) => w.msg)).toEqual([
      "milestone expression does not compile; counted as not passed",
      "milestone expression failed to evaluate; counted as not passed",
      "milestone expression failed to evaluate; counted as not passed",
    ]);
  });
});

describe("scoring with Ajv and JSONata injected", () => {
  const config: ScoringConfig = {
    prices: defaultPriceTable,
    // The planner is named too: contracts apply to runs where an agent they name took part.
    agentContracts: [
      { agent: "planner", role: "plan" },
      { agent: "reviewer", role: "review", isVerifier: true },
    ],
    handoffContracts: [
      {
        from: "planner",
        to: "writer",
        jsonSchema: { type: "object", required: ["message", "path"] },
        requiredConstraints: ["under 500 words", "cite sources"],
      },
    ],
    milestoneSet: {
      id: "m1",
      milestones: [
        { id: "saved", weight: 0.6, check: 'spans[tool = "save_file" and $not(isError)]' },
        { id: "reviewed", weight: 0.4, check: 'steps[agent = "reviewer" and $contains(output, "Approved")]', requires: ["saved"] },
      ],
    },
    configuredBaseline: null,
    coordinationWeights: null,
    repetitionK: null,
  };

  async function score(o: Parameters<typeof reportTrace>[0]) {
    const { log } = recordingLog();
    const s = reportTrace(o);
    const prepared = prepareTrace(s);
    const tags = runTagsOf(prepared, null);
    const evaluateMilestone = await evaluator().e.prepare(
      ['spans[tool = "save_file" and $not(isError)]', 'steps[agent = "reviewer" and $contains(output, "Approved")]'],
      buildTraceView(prepared, tags),
      ctx,
    );
    return scorePreparedTrace(prepared, {
      projectId: "p",
      traceId: s[0]!.traceId,
      version: 1,
      spans: s,
      config,
      outcomeOverride: null,
      baselineRun: null,
      validateSchema: createSchemaValidator(log),
      evaluateMilestone,
    });
  }

  it("gives a clean run full milestone credit and no findings", async () => {
    const r = await score({ startMs: 1_000, success: true });
    expect(r.findings).toEqual([]);
    expect(r.milestones).toMatchObject({ setId: "m1", partialCredit: 1, fullSuccess: true, furthestIndex: 1 });
    expect(Object.fromEntries(r.agents.map((a) => [a.agent, a.milestoneCredit]))).toEqual({ planner: 0, writer: 0.6, reviewer: 0.4 });
    expect(r.run.taskId).toBe("heat-pumps");
  });

  it("reports a payload failing its JSON Schema on the sender and attributes the failure to it", async () => {
    const r = await score({ startMs: 1_000, success: false, payloadWithoutPath: true });
    // The reviewer approved a run that failed: FM-3.3 too.
    expect(r.findings.map((f) => [f.mode, f.agent, f.source])).toEqual([
      ["FM-1.1", "planner", "contract"],
      ["FM-3.3", "reviewer", "heuristic"],
    ]);
    expect(r.attributions[0]).toMatchObject({ rank: 1, method: "first_failed_handoff_contract", agent: "planner" });
  });

  it("reports a dropped constraint, a missing verifier, unmet milestones and a failed save", async () => {
    const r = await score({ startMs: 1_000, success: false, dropConstraint: true, noReviewer: true, saveFails: true });
    expect(r.findings.map((f) => f.mode).sort()).toEqual(["FM-2.4", "FM-3.1", "FM-3.2"]);
    expect(r.milestones).toMatchObject({ partialCredit: 0, fullSuccess: false, furthestIndex: -1 });
    expect(r.attributions.map((a) => [a.rank, a.method, a.agent])).toEqual([
      [1, "first_unrecovered_tool_error", "writer"],
      [2, "first_dropped_constraint", "planner"],
    ]);
  });
});
