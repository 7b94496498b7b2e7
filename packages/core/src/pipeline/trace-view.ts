/**
 * The trace view: the JSON document milestone checks (JSONata expressions,
 * evaluated by the worker) and contract completion conditions run over.
 * Plain JSON (no bigint, no Map) so any expression library can read it;
 * times are milliseconds from the trace start.
 *
 *   {
 *     traceId, goal, rootSpanId,
 *     run:      { success, score, taskId, variant, experimentId, seed },
 *     spans:    [{ spanId, parentSpanId, name, operation, agent, agentPath, tool, model,
 *                  isError, errorType, statusMessage, input, output, args, attributes, tags,
 *                  stepIndex, startMs, endMs, durationMs, inputTokens, outputTokens }],
 *     steps:    [{ index, spanId, agent, kind, tool, args, input, output, isError }],
 *     agents:   [{ name, parentAgent, steps, input, output }],
 *     handoffs: [{ index, sender, receiver, message, spanId }],
 *     messages: [{ from, to, text, kind, spanId }]
 *   }
 *
 * Example checks: `spans[tool = "write_file" and $not(isError)]` (passes and
 * cites that span), `$count(steps[agent = "reviewer"]) > 0`,
 * `run.success = true`.
 */
import type { AttrValue, SpanTagValue } from "../span.ts";
import type { RunTags } from "../metrics/outcome.ts";
import { agentNameFromKey } from "../trajectory/build.ts";
import type { TraceTrajectories } from "../trajectory/types.ts";
import type { MilestoneCheckResult } from "../metrics/milestones.ts";
import type { MilestoneExpression, ScoringConfig } from "./config.ts";

export interface TraceViewSpan {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  operation: string;
  agent: string | null;
  agentPath: string[];
  tool: string | null;
  model: string | null;
  isError: boolean;
  errorType: string | null;
  statusMessage: string;
  input: string | null;
  output: string | null;
  args: string | null;
  attributes: Record<string, AttrValue>;
  tags: Record<string, SpanTagValue>;
  stepIndex: number | null;
  startMs: number;
  endMs: number;
  durationMs: number;
  inputTokens: number | null;
  outputTokens: number | null;
}

export interface TraceView {
  traceId: string | null;
  goal: string | null;
  rootSpanId: string | null;
  run: Pick<RunTags, "success" | "score" | "taskId" | "variant" | "experimentId" | "seed">;
  spans: TraceViewSpan[];
  steps: Array<{
    index: number;
    spanId: string;
    agent: string | null;
    kind: string;
    tool: string | null;
    args: string | null;
    input: string | null;
    output: string | null;
    isError: boolean;
  }>;
  agents: Array<{ name: string; parentAgent: string | null; steps: number; input: string | null; output: string | null }>;
  handoffs: Array<{ index: number; sender: string | null; receiver: string | null; message: string | null; spanId: string }>;
  messages: Array<{ from: string | null; to: string | null; text: string; kind: string; spanId: string }>;
}

export function buildTraceView(t: TraceTrajectories, run: TraceView["run"]): TraceView {
  let origin: bigint | null = null;
  for (const s of t.spans) if (origin === null || s.startTimeUnixNano < origin) origin = s.startTimeUnixNano;
  const msFrom = (ns: bigint): number => Number(ns - (origin ?? ns)) / 1e6;
  const nameOfKey = (key: string | null): string | null =>
    key === null ? null : (t.attribution.agents.find((a) => a.key === key)?.name ?? agentNameFromKey(key));
  const spans = t.spans.map((s): TraceViewSpan => {
    const attr = t.attribution.bySpan.get(s.spanId);
    return {
      spanId: s.spanId,
      parentSpanId: s.parentSpanId,
      name: s.name,
      operation: s.operation,
      agent: nameOfKey(attr?.agentKey ?? null),
      agentPath: attr?.agentPath ?? [],
      tool: s.toolName,
      model: s.model,
      isError: s.isError,
      errorType: s.errorType,
      statusMessage: s.status.message,
      input: s.content.text().input,
      output: s.content.text().output,
      args: s.content.text().toolArgs,
      attributes: s.attributes,
      tags: s.tags,
      stepIndex: t.stepIndexBySpan.get(s.spanId) ?? null,
      startMs: msFrom(s.startTimeUnixNano),
      endMs: msFrom(s.endTimeUnixNano),
      durationMs: Number(s.endTimeUnixNano - s.startTimeUnixNano) / 1e6,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
    };
  });
  return {
    traceId: t.traceId,
    goal: t.goal,
    rootSpanId: t.rootSpanId,
    run: { success: run.success, score: run.score, taskId: run.taskId, variant: run.variant, experimentId: run.experimentId, seed: run.seed },
    spans,
    steps: t.steps.map((s) => ({
      index: s.index,
      spanId: s.spanId,
      agent: s.agent,
      kind: s.kind,
      tool: s.toolName,
      args: s.args,
      input: s.inputText,
      output: s.outputText,
      isError: s.isError,
    })),
    agents: t.agents.map((a) => ({ name: a.name, parentAgent: a.parentAgent, steps: a.steps.length, input: a.inputText, output: a.outputText })),
    handoffs: t.handoffs.map((h) => ({ index: h.index, sender: h.sender, receiver: h.receiver, message: h.message, spanId: h.spanId })),
    messages: t.messages.map((m) => ({ from: m.from, to: m.to, text: m.text, kind: m.kind, spanId: m.spanId })),
  };
}

/**
 * What an expression's value means for a check: falsy values (undefined,
 * null, false, 0, "", NaN, an empty array or object) fail; anything else
 * passes. A value that is a span/step of the view (an object with a string
 * spanId), or an array whose first element is one, also names the span that
 * satisfied the check (for milestone credit).
 */
export function checkResultOf(value: unknown): MilestoneCheckResult {
  if (Array.isArray(value)) {
    if (value.length === 0) return false;
    return { passed: true, spanId: spanIdOf(value[0]) };
  }
  if (value === undefined || value === null || value === false || value === 0 || value === "" || Number.isNaN(value)) return false;
  if (typeof value === "object") {
    if (Object.keys(value).length === 0) return false;
    return { passed: true, spanId: spanIdOf(value) };
  }
  return true;
}

function spanIdOf(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  const id = (value as { spanId?: unknown }).spanId;
  return typeof id === "string" ? id : null;
}

/** Every expression scoring may evaluate: milestone checks and string completion conditions of agent contracts. */
export function expressionsOf(config: Pick<ScoringConfig, "milestoneSet" | "agentContracts">): MilestoneExpression[] {
  const out = new Set<MilestoneExpression>();
  for (const m of config.milestoneSet?.milestones ?? []) if (typeof m.check === "string") out.add(m.check);
  for (const c of config.agentContracts) if (typeof c.completionCondition === "string") out.add(c.completionCondition);
  return [...out];
}
