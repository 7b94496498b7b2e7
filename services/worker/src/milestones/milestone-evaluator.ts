/**
 * Milestone checks and contract completion conditions are JSONata expressions
 * over the trace view (packages/core pipeline/trace-view.ts).
 *
 * Why JSONata rather than JSON Logic: a check asks questions of nested trace
 * data ("a write_file span of the writer that did not fail", "the reviewer
 * said approved after the last write"); JSONata has paths, predicates/filters
 * over arrays, regex and aggregation built in, and returning the matching span
 * object lets a milestone name the span (and so the agent) that satisfied it.
 * JSON Logic is a flat boolean rule language over variables: filtering arrays
 * of objects needs nested some/filter/var constructs and it cannot return the
 * matching element. JSONata is maintained by IBM, has no dependencies, and
 * v2 has built-in guardrails (timeout, stack depth, sequence length) which
 * matter for expressions users write.
 *
 * User expressions are untrusted for cost: they run in worker threads
 * (milestone-pool.ts), within budgets:
 * - per expression (timeoutMs): past it the expression failed (not passed);
 * - per trace (traceBudgetMs of evaluation in total) and per project
 *   (projectBudgetMs per minute): once one runs out the remaining checks are
 *   NOT EVALUATED, which scoring reports as unknown, never as passed or failed.
 * An expression that fails to compile or evaluate counts as not passed and is
 * logged, never fatal. Core's evaluator is synchronous, so every expression is
 * evaluated up front and scoring gets a lookup.
 */
import { checkResultOf, notEvaluatedReasonOf, type MilestoneCheckResult, type MilestoneEvaluator, type MilestoneExpression, type TraceView } from "@crux/core";
import type { Logger } from "@crux/runtime";
import { createProjectBudget } from "./milestone-budget.ts";
import { createMilestonePool, type ExpressionLimits, type ThreadMessage } from "./milestone-pool.ts";
import type { WorkerMetrics } from "../metrics.ts";

export type { ExpressionLimits } from "./milestone-pool.ts";

export const defaultExpressionLimits: ExpressionLimits = { timeoutMs: 1_000, maxDepth: 500, maxSequence: 1_000_000 };

export interface MilestoneEvaluatorOptions {
  log: Logger;
  limits?: Partial<ExpressionLimits>;
  threads?: number;
  traceBudgetMs?: number;
  projectBudgetMs?: number;
  projectWindowMs?: number;
  /** Extra time past a limit before a blocked thread is terminated. */
  graceMs?: number;
  metrics?: WorkerMetrics;
  now?: () => number;
}

export interface PrepareContext {
  projectId: string;
  traceId?: string;
}

type NotEvaluated = "trace_budget" | "project_budget";

/**
 * A budget with less left than this is spent (the thread applies the same rule): no
 * expression does useful work in it, and a sub-millisecond remainder left by timer
 * rounding would otherwise let a cheap check run after the budget was used up.
 */
const minBudgetLeftMs = 5;

export function createMilestoneEvaluator(opts: MilestoneEvaluatorOptions) {
  const log = opts.log;
  const limits: ExpressionLimits = { ...defaultExpressionLimits, ...opts.limits };
  const traceBudgetMs = opts.traceBudgetMs ?? 5_000;
  const budget = createProjectBudget({
    budgetMs: opts.projectBudgetMs ?? 30_000,
    ...(opts.projectWindowMs ? { windowMs: opts.projectWindowMs } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  const pool = createMilestonePool({
    threads: opts.threads ?? 2,
    ...(opts.graceMs === undefined ? {} : { graceMs: opts.graceMs }),
    onThreadTerminated: () => opts.metrics?.milestoneThreadsTerminated.inc(),
  });

  /**
   * Evaluates every expression over the view (in threads, within the
   * budgets), then returns the synchronous evaluator scoreTrace calls. An
   * expression not in the list does not pass.
   */
  async function prepare(expressions: MilestoneExpression[], view: TraceView, context: PrepareContext): Promise<MilestoneEvaluator<MilestoneExpression>> {
    const results = new Map<MilestoneExpression, MilestoneCheckResult>();
    const sources = [...new Set(expressions)];
    const viewJson = JSON.stringify(view);
    const logContext = { projectId: context.projectId, ...(context.traceId ? { traceId: context.traceId } : {}) };
    let traceUsedMs = 0;
    let next = 0;
    let cutBy: NotEvaluated | null = null;
    while (next < sources.length && cutBy === null) {
      const traceLeftMs = traceBudgetMs - traceUsedMs;
      const projectLeftMs = budget.remainingMs(context.projectId);
      if (traceLeftMs < minBudgetLeftMs || projectLeftMs < minBudgetLeftMs) {
        cutBy = traceLeftMs < minBudgetLeftMs ? "trace_budget" : "project_budget";
        break;
      }
      const batch = sources.slice(next);
      const offset = next;
      let answered = 0;
      await pool.run({ projectId: context.projectId, viewJson, sources: batch, limits, traceLeftMs, projectLeftMs }, (m: ThreadMessage) => {
        if (m.type === "stopped") cutBy = m.reason;
        if (m.type !== "done") return;
        const source = batch[m.index]!;
        traceUsedMs += m.elapsedMs;
        budget.charge(context.projectId, m.elapsedMs);
        answered = Math.max(answered, m.index + 1);
        const o = m.outcome;
        if (o.kind === "value") {
          results.set(source, checkResultOf(o.value));
        } else if (o.kind === "limit" && o.limitedBy !== "timeout") {
          results.set(source, { passed: false, notEvaluated: o.limitedBy });
          cutBy = o.limitedBy;
        } else {
          const error = o.kind === "limit" ? `ran past its ${o.limitMs} ms limit` : o.message;
          const msg =
            o.kind === "compile_error"
              ? "milestone expression does not compile; counted as not passed"
              : "milestone expression failed to evaluate; counted as not passed";
          log.warn({ ...logContext, expression: source.slice(0, 500), error }, msg);
          results.set(source, false);
        }
      });
      // A task that ended early (thread terminated or died) continues with the next expression in a new task.
      next = offset + Math.max(answered, 1);
      if (answered === 0 && !results.has(batch[0]!)) {
        log.warn({ ...logContext, expression: batch[0]!.slice(0, 500) }, "milestone evaluation thread failed; counted as not passed");
        results.set(batch[0]!, false);
      }
    }
    if (cutBy !== null) {
      for (const s of sources) if (!results.has(s)) results.set(s, { passed: false, notEvaluated: cutBy });
      const skipped = sources.filter((s) => notEvaluatedReasonOf(results.get(s)!) !== null);
      opts.metrics?.milestoneBudgetExhausted.inc({ budget: cutBy === "trace_budget" ? "trace" : "project" });
      opts.metrics?.milestoneChecksNotEvaluated.inc({ budget: cutBy === "trace_budget" ? "trace" : "project" }, skipped.length);
      log.warn(
        { ...logContext, notEvaluated: skipped.length, of: sources.length, budget: cutBy },
        "milestone evaluation budget ran out; remaining checks not evaluated",
      );
    }
    return (check) => results.get(check) ?? false;
  }

  return { prepare, close: () => pool.close(), pool };
}

export type MilestoneExpressionEvaluator = ReturnType<typeof createMilestoneEvaluator>;
