/**
 * Milestone expressions run in worker threads within budgets: a runaway
 * expression never blocks the main event loop (its thread is terminated and
 * replaced), the trace and project budgets leave the remaining checks NOT
 * EVALUATED (never passed or failed), and projects take turns for threads.
 */
import { buildTraceView, prepareTrace, runTagsOf } from "@crux/core";
import { createMetricsRegistry } from "@crux/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { createWorkerMetrics } from "../src/metrics.ts";
import { createMilestoneEvaluator, type MilestoneEvaluatorOptions, type MilestoneExpressionEvaluator } from "../src/milestones/milestone-evaluator.ts";
import { recordingLog, reportTrace } from "./traces.ts";

const spans = reportTrace({ startMs: Date.UTC(2026, 0, 1) });
const t = prepareTrace(spans);
const view = buildTraceView(t, runTagsOf(t, null));

/** Cooperative: JSONata's own timeout stops it. */
const slow = (n: number) => `( $f := function($i){ $i < 1e12 ? $f($i + 1) : $i }; $f(${n}) )`;
/** Catastrophic backtracking inside one regex call: blocks its thread; JSONata cannot interrupt it. */
const blocking = '$contains("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)';

const evaluators: MilestoneExpressionEvaluator[] = [];
afterAll(async () => {
  for (const e of evaluators) await e.close();
});
function evaluator(opts: Omit<MilestoneEvaluatorOptions, "log">) {
  const { log, warnings } = recordingLog();
  const registry = createMetricsRegistry({ processMetrics: false });
  const metrics = createWorkerMetrics(registry);
  const e = createMilestoneEvaluator({ log, metrics, ...opts });
  evaluators.push(e);
  return { e, warnings, metrics, registry };
}

/** Largest delay of a 10 ms timer while `work` runs: how long the main event loop was blocked. */
async function maxTimerLag<T>(work: () => Promise<T>): Promise<{ value: T; lagMs: number }> {
  let lagMs = 0;
  let expected = performance.now() + 10;
  const timer = setInterval(() => {
    const now = performance.now();
    lagMs = Math.max(lagMs, now - expected);
    expected = now + 10;
  }, 10);
  try {
    return { value: await work(), lagMs };
  } finally {
    clearInterval(timer);
  }
}

describe("milestone evaluation off the main thread", () => {
  it("a blocking expression is cut at its limit by terminating its thread; the event loop stays responsive and later checks still run", async () => {
    const { e, warnings, registry } = evaluator({ threads: 1, limits: { timeoutMs: 300 }, graceMs: 100, traceBudgetMs: 10_000 });
    const { value: evaluate, lagMs } = await maxTimerLag(() => e.prepare([blocking, "$count(spans) > 0"], view, { projectId: "p" }));
    expect(lagMs).toBeLessThan(1_000); // on the main thread the regex would block for minutes (margin: a loaded machine)
    expect(evaluate(blocking, t)).toBe(false); // ran past its own limit: failed, like a JSONata timeout
    expect(evaluate("$count(spans) > 0", t)).toBe(true); // evaluated on the replacement thread
    expect(warnings.map((w) => w.msg)).toEqual(["milestone expression failed to evaluate; counted as not passed"]);
    expect(await registry.getSingleMetricAsString("crux_worker_milestone_threads_terminated_total")).toMatch(/ 1$/m);
  }, 20_000);

  it("the trace budget leaves the remaining checks not evaluated, with the reason", async () => {
    const { e, warnings, registry } = evaluator({ threads: 1, limits: { timeoutMs: 200 }, traceBudgetMs: 500 });
    const checks = [slow(1), slow(2), slow(3), slow(4), "$count(spans) > 0"];
    const evaluate = await e.prepare(checks, view, { projectId: "p" });
    // 200 + 200 ms used; the third gets the 100 ms left and is cut by the budget, not by its own timeout.
    expect(checks.map((c) => evaluate(c, t))).toEqual([
      false,
      false,
      { passed: false, notEvaluated: "trace_budget" },
      { passed: false, notEvaluated: "trace_budget" },
      { passed: false, notEvaluated: "trace_budget" },
    ]);
    expect(warnings.at(-1)).toMatchObject({
      msg: "milestone evaluation budget ran out; remaining checks not evaluated",
      obj: { notEvaluated: 3, of: 5, budget: "trace_budget" },
    });
    expect(await registry.getSingleMetricAsString("crux_worker_milestone_checks_not_evaluated_total")).toMatch(/budget="trace"} 3$/m);
  }, 20_000);

  it("the project budget per window stops one project, not another, and refills in the next window", async () => {
    let now = 0;
    const { e } = evaluator({ threads: 1, limits: { timeoutMs: 200 }, traceBudgetMs: 10_000, projectBudgetMs: 300, projectWindowMs: 60_000, now: () => now });
    const checks = [slow(1), slow(2)];
    const first = await e.prepare(checks, view, { projectId: "a" });
    expect(checks.map((c) => first(c, t))).toEqual([false, { passed: false, notEvaluated: "project_budget" }]);
    const again = await e.prepare(["$count(spans) > 0"], view, { projectId: "a" });
    expect(again("$count(spans) > 0", t)).toEqual({ passed: false, notEvaluated: "project_budget" });
    const other = await e.prepare(["$count(spans) > 0"], view, { projectId: "b" });
    expect(other("$count(spans) > 0", t)).toBe(true);
    now += 60_000;
    const nextWindow = await e.prepare(["$count(spans) > 0"], view, { projectId: "a" });
    expect(nextWindow("$count(spans) > 0", t)).toBe(true);
  }, 20_000);

  it("a budget with only a sliver left (under 5 ms) counts as spent: a cheap check does not slip through", async () => {
    const { e } = evaluator({ threads: 1, limits: { timeoutMs: 200 }, traceBudgetMs: 10_000, projectBudgetMs: 3 });
    const r = await e.prepare(["$count(spans) > 0"], view, { projectId: "sliver" });
    expect(r("$count(spans) > 0", t)).toEqual({ passed: false, notEvaluated: "project_budget" });
  }, 20_000);

  it("projects take turns for threads: a project's backlog does not hold back another project's trace", async () => {
    const { e } = evaluator({ threads: 1, limits: { timeoutMs: 150 }, traceBudgetMs: 10_000, projectBudgetMs: 60_000 });
    const finished: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => finished.push(name));
    const a = [1, 2, 3].map((i) => track(`a${i}`, e.prepare([slow(i), slow(i + 10)], view, { projectId: "a" })));
    await new Promise((r) => setTimeout(r, 20)); // a1 is running, a2 and a3 wait
    const b = track("b", e.prepare(["$count(spans) > 0"], view, { projectId: "b" }));
    await Promise.all([...a, b]);
    expect(finished).toEqual(["a1", "b", "a2", "a3"]);
  }, 20_000);
});
