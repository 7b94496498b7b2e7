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
 * JSONata v2 evaluates asynchronously while the core evaluator is synchronous,
 * so every expression is evaluated up front and scoring gets a lookup. An
 * expression that fails to compile or evaluate counts as not passed and is
 * logged, never fatal.
 */
import { checkResultOf, type MilestoneCheckResult, type MilestoneEvaluator, type MilestoneExpression, type TraceView } from "@crux/core";
import type { Logger } from "@crux/runtime";
import jsonata from "jsonata";

export interface ExpressionLimits {
  /** Evaluation time limit per expression, ms. */
  timeoutMs: number;
  /** Maximum evaluation stack depth. */
  maxDepth: number;
  /** Maximum length of a sequence an expression builds. */
  maxSequence: number;
}

export const defaultExpressionLimits: ExpressionLimits = { timeoutMs: 1_000, maxDepth: 500, maxSequence: 1_000_000 };

type Compiled = { ok: true; expression: jsonata.Expression } | { ok: false; error: string };

const MAX_CACHED = 1_000;

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null) {
    const e = err as { code?: unknown; message?: unknown };
    return `${String(e.code ?? "error")}: ${String(e.message ?? "")}`.trim();
  }
  return String(err);
}

/** Compiled expressions are cached by source text across traces (projects reuse the same few checks). */
export function createMilestoneEvaluator(log: Logger, limits: ExpressionLimits = defaultExpressionLimits) {
  const cache = new Map<string, Compiled>();

  function compile(source: string): Compiled {
    const hit = cache.get(source);
    if (hit !== undefined) return hit;
    let compiled: Compiled;
    try {
      compiled = { ok: true, expression: jsonata(source, { timeout: limits.timeoutMs, stack: limits.maxDepth, sequence: limits.maxSequence }) };
    } catch (err) {
      compiled = { ok: false, error: describe(err) };
    }
    if (cache.size >= MAX_CACHED) cache.clear(); // bounded; recompiling is cheap
    cache.set(source, compiled);
    return compiled;
  }

  /**
   * Evaluates every expression over the view, then returns the synchronous
   * evaluator scoreTrace calls. An expression not evaluated here (not in the
   * list) does not pass.
   */
  async function prepare(expressions: MilestoneExpression[], view: TraceView, context: object = {}): Promise<MilestoneEvaluator<MilestoneExpression>> {
    const results = new Map<MilestoneExpression, MilestoneCheckResult>();
    for (const source of expressions) {
      const compiled = compile(source);
      if (!compiled.ok) {
        log.warn({ ...context, expression: source, error: compiled.error }, "milestone expression does not compile; counted as not passed");
        results.set(source, false);
        continue;
      }
      try {
        results.set(source, checkResultOf(await compiled.expression.evaluate(view)));
      } catch (err) {
        log.warn({ ...context, expression: source, error: describe(err) }, "milestone expression failed to evaluate; counted as not passed");
        results.set(source, false);
      }
    }
    return (check) => results.get(check) ?? false;
  }

  return { prepare };
}

export type MilestoneExpressionEvaluator = ReturnType<typeof createMilestoneEvaluator>;
