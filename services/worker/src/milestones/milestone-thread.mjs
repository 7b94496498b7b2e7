/**
 * Runs in a worker thread (piscina): evaluates one trace's milestone
 * expressions, in order, against its view. Plain JavaScript so the thread
 * loads the same way under node, tsx and vitest.
 *
 * Each expression's limit is the smallest of its own timeout and what is
 * left of the trace's and the project's budgets; the reason for the limit is
 * reported with it. Progress goes over `port`: "start" before each expression
 * (so the pool can terminate this thread if the expression blocks past its
 * limit, e.g. a catastrophic regex that JSONata's own timeout cannot stop),
 * "done" after it.
 */
import jsonata from "jsonata";

const MAX_CACHED = 1_000;
const compiled = new Map();

/** JSONata binds the timeout at compile time: only the usual limit is cached (a budget-cut one is compiled once). */
function compile(source, limits, cache) {
  const key = `${limits.timeoutMs}\u0000${limits.maxDepth}\u0000${limits.maxSequence}\u0000${source}`;
  let hit = cache ? compiled.get(key) : undefined;
  if (hit === undefined) {
    try {
      hit = { ok: true, expression: jsonata(source, { timeout: limits.timeoutMs, stack: limits.maxDepth, sequence: limits.maxSequence }) };
    } catch (err) {
      hit = { ok: false, error: describe(err) };
    }
    if (!cache) return hit;
    if (compiled.size >= MAX_CACHED) compiled.clear(); // bounded; recompiling is cheap
    compiled.set(key, hit);
  }
  return hit;
}

function describe(err) {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null) return `${String(err.code ?? "error")}: ${String(err.message ?? "")}`.trim();
  return String(err);
}

/** What checkResultOf needs of a value, small enough to send back: emptiness, and the first span id. */
function reduce(value) {
  if (typeof value === "function") return true;
  if (Array.isArray(value)) return value.length === 0 ? [] : [pick(value[0])];
  if (typeof value === "object" && value !== null) return Object.keys(value).length === 0 ? {} : pick(value);
  return value;
}

function pick(v) {
  if (typeof v !== "object" || v === null) return typeof v === "function" ? true : v;
  return typeof v.spanId === "string" ? { spanId: v.spanId } : { nonEmpty: true };
}

/**
 * task: { viewJson, sources, limits: { timeoutMs, maxDepth, maxSequence }, traceLeftMs, projectLeftMs, port }
 * Posts { type: "start", index, limitMs, limitedBy } and { type: "done", index, elapsedMs, outcome }.
 */
export default async function evaluateTrace(task) {
  const { sources, limits, port } = task;
  const view = JSON.parse(task.viewJson);
  let used = 0;
  try {
    for (let index = 0; index < sources.length; index++) {
      const traceLeft = task.traceLeftMs - used;
      const projectLeft = task.projectLeftMs - used;
      // Less than 5 ms left is spent (the same rule as milestone-evaluator.ts minBudgetLeftMs).
      if (traceLeft < 5 || projectLeft < 5) {
        port.postMessage({ type: "stopped", index, reason: traceLeft <= projectLeft ? "trace_budget" : "project_budget" });
        break;
      }
      let limitMs = limits.timeoutMs;
      let limitedBy = "timeout";
      if (traceLeft < limitMs) [limitMs, limitedBy] = [traceLeft, "trace_budget"];
      if (projectLeft < limitMs) [limitMs, limitedBy] = [projectLeft, "project_budget"];
      limitMs = Math.max(1, Math.floor(limitMs));
      const expression = compile(sources[index], { ...limits, timeoutMs: limitMs }, limitedBy === "timeout");
      port.postMessage({ type: "start", index, limitMs, limitedBy });
      const started = performance.now();
      let outcome;
      if (!expression.ok) {
        outcome = { kind: "compile_error", message: expression.error };
      } else {
        try {
          outcome = { kind: "value", value: reduce(await expression.expression.evaluate(view)) };
        } catch (err) {
          const timedOut = typeof err === "object" && err !== null && err.code === "D1012";
          outcome = timedOut ? { kind: "limit", limitedBy, limitMs } : { kind: "error", message: describe(err) };
        }
      }
      const elapsedMs = performance.now() - started;
      used += elapsedMs;
      port.postMessage({ type: "done", index, elapsedMs, outcome });
    }
    port.postMessage({ type: "end" });
  } finally {
    port.close();
  }
}
