/**
 * Python goldens: recorded OTLP/protobuf exports of nine Python tracer setups
 * (golden-python/README.md), each the same three-agent crew, run through
 * decode -> normalize -> attributeAgents and scoreTrace, and checked against
 * the hand-checked answer key (answer-key.json). Each setup's expected.json
 * restates the key per agent, plus the scenario facts the key leaves out
 * (which tool calls each agent made, which routing tools stay tool calls);
 * the first test holds expected.json to the key.
 *
 * A trace is scored on its own, so every check runs per trace: the setup
 * without a root span (autogen-noroot) arrives as 36 traces, and each must be
 * right by itself (its agents, its tool calls' owners, no invented handoff);
 * summed over its traces the answer is the run's.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { NormalizedSpan } from "@crux/core";
import { attributeAgents } from "../../core/src/attribution/index.ts";
import type { TraceAttribution } from "../../core/src/attribution/types.ts";
import { scoreTrace } from "../../core/src/pipeline/index.ts";
import type { TraceScoreRecord } from "../../core/src/pipeline/record.ts";
import { defaultPriceTable } from "../../core/src/metrics/price-table.ts";
import { decodeExportRequest } from "../src/decode/index.ts";
import { addContent, normalizeSpans } from "../src/normalize/index.ts";

interface ExpectedAgent {
  name: string;
  /** null: the tracer reports no tokens for this setup. */
  inputTokens: number | null;
  outputTokens: number | null;
  llmCalls: number;
  /** Tool spans Crux counts as this agent's calls: the business tools plus routing tools that are not handoffs. */
  toolCalls: string[];
}
interface ExpectedHandoff {
  from: string;
  to: string;
  via: string;
  /** false: the framework records no span for it (LangGraph's automatic hand-back), so it is not expected. */
  traced?: boolean;
  /** Senders that are equally right (CrewAI's sequential task hand-over). */
  fromAlternatives?: string[];
}
interface Expected {
  setup: string;
  tokensReported: boolean;
  agents: ExpectedAgent[];
  handoffTools: string[];
  realErrors: Array<{ toolName: string; agent: string }>;
  handoffs: ExpectedHandoff[];
}
interface KeyScenario {
  file: string;
  trace_ids: string[];
  agents: string[];
  llm_calls: number;
  tokens: Record<string, { input: number; output: number; llm_calls: number }>;
  tokens_total: { input: number; output: number };
  tool_calls: Record<string, number>;
  routing_tool_calls: Record<string, number>;
  tool_errors: Array<{ tool: string; agent: string; error: string }>;
  llm_spans_in_trace: number;
}
interface KeyFramework {
  handoffs: Array<{ from: string; to: string; kind: string; via: string }>;
  scenarios: { base: KeyScenario };
}

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden-python");
const key = (JSON.parse(readFileSync(path.join(root, "answer-key.json"), "utf8")) as { frameworks: Record<string, KeyFramework> }).frameworks;
const setups = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

const sorted = (xs: readonly string[]): string[] => [...xs].sort();
/** "Delegate work to coworker" (CrewAI's tool.name) and "delegate_work_to_coworker" (what the model called) are one tool. */
const toolKey = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, "_");
const counts = (xs: readonly string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
};

interface TraceResult {
  traceId: string;
  spans: NormalizedSpan[];
  attribution: TraceAttribution;
  record: TraceScoreRecord;
}

function readTraces(setup: string): TraceResult[] {
  const decoded = decodeExportRequest(new Uint8Array(readFileSync(path.join(root, setup, "base.bin"))), "protobuf");
  expect(decoded.rejectedSpans).toBe(0);
  const byTrace = new Map<string, NormalizedSpan[]>();
  for (const span of normalizeSpans(decoded.spans).map(addContent)) {
    const list = byTrace.get(span.traceId) ?? [];
    list.push(span);
    byTrace.set(span.traceId, list);
  }
  return [...byTrace].map(([traceId, spans]) => ({
    traceId,
    spans,
    attribution: attributeAgents(spans),
    record: scoreTrace({
      projectId: "golden-python",
      traceId,
      version: 1,
      spans,
      config: {
        prices: defaultPriceTable,
        agentContracts: [],
        handoffContracts: [],
        milestoneSet: null,
        configuredBaseline: null,
        coordinationWeights: null,
        repetitionK: null,
      },
      outcomeOverride: { success: false },
      baselineRun: null,
      validateSchema: () => ({ valid: true, errors: [] }),
      evaluateMilestone: () => false,
    }),
  }));
}

it("has a golden for each of the nine recorded Python setups, each in the answer key", () => {
  expect(setups).toEqual([
    "autogen",
    "autogen-noroot",
    "autogen-openinference",
    "crewai",
    "langgraph",
    "openai-agents",
    "openai-agents-otel",
    "openai-agents-responses",
    "smolagents",
  ]);
  expect(sorted(Object.keys(key))).toEqual(setups);
});

describe.each(setups)("Python golden %s", (setup) => {
  const expected = JSON.parse(readFileSync(path.join(root, setup, "expected.json"), "utf8")) as Expected;
  const framework = key[setup] as KeyFramework;
  const answer = framework.scenarios.base;
  const traces = readTraces(setup);
  const tracedHandoffs = expected.handoffs.filter((h) => h.traced !== false);

  /** Name of the agent owning a span in its trace's attribution (null when none). */
  const ownerName = (t: TraceResult, spanId: string): string | null => {
    const k = t.attribution.bySpan.get(spanId)?.agentKey ?? null;
    return k === null ? null : (t.attribution.agents.find((a) => a.key === k)?.name ?? null);
  };
  /** Tool spans Crux counts as calls: not handoffs, and a call traced by two conventions once. */
  const toolCallSpans = (t: TraceResult): NormalizedSpan[] =>
    t.spans.filter((s) => s.operation === "tool" && t.attribution.bySpan.get(s.spanId)?.duplicateOf === null);

  it("expected.json restates the answer key", () => {
    expect(sorted(expected.agents.map((a) => a.name))).toEqual(sorted(answer.agents));
    expect(expected.tokensReported).toBe(answer.llm_spans_in_trace > 0);
    for (const a of expected.agents) {
      const t = answer.tokens[a.name];
      if (expected.tokensReported)
        expect({ agent: a.name, input: a.inputTokens, output: a.outputTokens, llm: a.llmCalls }).toEqual({
          agent: a.name,
          input: t?.input,
          output: t?.output,
          llm: t?.llm_calls,
        });
      else
        expect({ agent: a.name, input: a.inputTokens, output: a.outputTokens, llm: a.llmCalls }).toEqual({ agent: a.name, input: null, output: null, llm: 0 });
    }
    // Every tool call listed is a business tool of the key or one of its routing tools; the business ones add up to the key's.
    const listed = expected.agents.flatMap((a) => a.toolCalls);
    const routing = new Set(Object.keys(answer.routing_tool_calls).map(toolKey));
    expect(counts(listed.filter((t) => !routing.has(toolKey(t))))).toEqual(answer.tool_calls);
    for (const tool of [...listed, ...expected.handoffTools]) {
      expect(routing.has(toolKey(tool)) || answer.tool_calls[tool] !== undefined, `${tool} is in the key`).toBe(true);
    }
    expect(expected.realErrors).toEqual(answer.tool_errors.map((e) => ({ toolName: e.tool, agent: e.agent })));
    expect(expected.handoffs.map((h) => ({ from: h.from, to: h.to, via: h.via }))).toEqual(
      framework.handoffs.map((h) => ({ from: h.from, to: h.to, via: h.via })),
    );
  });

  it("decodes the recorded traces", () => {
    expect(sorted(traces.map((t) => t.traceId))).toEqual(sorted(answer.trace_ids));
  });

  it("each trace on its own: only the crew's agents, every tool call owned by the agent that made it", () => {
    const agentOfTool = (owner: string | null, tool: string): boolean => expected.agents.some((a) => a.name === owner && a.toolCalls.includes(tool));
    for (const t of traces) {
      for (const a of t.attribution.agents) expect(answer.agents, `trace ${t.traceId}`).toContain(a.name);
      for (const s of toolCallSpans(t)) {
        const owner = ownerName(t, s.spanId);
        expect(agentOfTool(owner, s.toolName ?? ""), `${s.toolName ?? s.name} owned by ${owner ?? "nobody"} in trace ${t.traceId}`).toBe(true);
      }
      for (const h of t.attribution.handoffs) {
        const known = tracedHandoffs.some((e) => e.to === h.to && (e.fromAlternatives ?? [e.from]).includes(h.from ?? ""));
        expect(known, `handoff ${h.from ?? "?"} -> ${h.to ?? "?"} (${h.via}) in trace ${t.traceId}`).toBe(true);
      }
      for (const a of t.record.agents)
        expect({ trace: t.traceId, agent: a.agent, tokensReported: a.tokensReported }).toEqual({
          trace: t.traceId,
          agent: a.agent,
          tokensReported: expected.tokensReported,
        });
    }
  });

  it("finds exactly the crew's agents", () => {
    expect(sorted([...new Set(traces.flatMap((t) => t.attribution.agents.map((a) => a.name)))])).toEqual(sorted(answer.agents));
  });

  it("attributes each agent's own tokens, each LLM call once (or says the tracer reported none)", () => {
    const actual: Record<string, { input: number | null; output: number | null; llmCalls: number }> = {};
    for (const t of traces) {
      for (const a of t.attribution.agents) {
        const row = (actual[a.name] ??= { input: 0, output: 0, llmCalls: 0 });
        row.llmCalls += a.llmCalls;
        if (!a.tokensReported) {
          row.input = null;
          row.output = null;
        } else if (row.input !== null && row.output !== null) {
          row.input += a.inputTokens;
          row.output += a.outputTokens;
        }
      }
    }
    expect(actual).toEqual(Object.fromEntries(expected.agents.map((a) => [a.name, { input: a.inputTokens, output: a.outputTokens, llmCalls: a.llmCalls }])));
    const totals = traces.reduce(
      (acc, t) => ({ input: acc.input + t.attribution.totals.inputTokens, output: acc.output + t.attribution.totals.outputTokens }),
      { input: 0, output: 0 },
    );
    expect(totals).toEqual(expected.tokensReported ? { input: answer.tokens_total.input, output: answer.tokens_total.output } : { input: 0, output: 0 });
  });

  it("counts each tool call once, for the agent that made it", () => {
    const actual: Record<string, string[]> = Object.fromEntries(expected.agents.map((a) => [a.name, []]));
    const counted: Record<string, number> = Object.fromEntries(expected.agents.map((a) => [a.name, 0]));
    for (const t of traces) {
      for (const s of toolCallSpans(t)) (actual[ownerName(t, s.spanId) ?? "<none>"] ??= []).push(s.toolName ?? `<unnamed ${s.name}>`);
      for (const a of t.attribution.agents) counted[a.name] = (counted[a.name] ?? 0) + a.toolCalls;
    }
    expect(Object.fromEntries(Object.entries(actual).map(([k, v]) => [k, sorted(v)]))).toEqual(
      Object.fromEntries(expected.agents.map((a) => [a.name, sorted(a.toolCalls)])),
    );
    expect(counted).toEqual(Object.fromEntries(expected.agents.map((a) => [a.name, a.toolCalls.length])));
  });

  it("counts the failing tool once, as its agent's only error", () => {
    const errors: Record<string, number> = {};
    const scoredErrors: Record<string, number> = {};
    const failing: Array<{ toolName: string | null; agent: string | null }> = [];
    for (const t of traces) {
      for (const a of t.attribution.agents) errors[a.name] = (errors[a.name] ?? 0) + a.errors;
      for (const a of t.record.agents) scoredErrors[a.agent] = (scoredErrors[a.agent] ?? 0) + a.errors;
      for (const s of t.spans)
        if (t.attribution.bySpan.get(s.spanId)?.countedError === true) failing.push({ toolName: s.toolName, agent: ownerName(t, s.spanId) });
    }
    const wanted = Object.fromEntries(expected.agents.map((a) => [a.name, expected.realErrors.filter((e) => e.agent === a.name).length]));
    expect(errors).toEqual(wanted);
    expect(scoredErrors).toEqual(wanted);
    expect(failing).toEqual(expected.realErrors);
    // One error path per failure, on the failing tool's agent.
    expect(traces.flatMap((t) => t.record.errorPaths.map((e) => e.agent))).toEqual(expected.realErrors.map((e) => e.agent));
  });

  it("finds every traced handoff once, and no other", () => {
    const found = traces.flatMap((t) => t.attribution.handoffs);
    expect(found.length).toBe(tracedHandoffs.length);
    const left = [...found];
    for (const h of tracedHandoffs) {
      const at = left.findIndex((f) => f.to === h.to && (h.fromAlternatives ?? [h.from]).includes(f.from ?? ""));
      expect(at, `handoff ${h.from} -> ${h.to} (${h.via})`).toBeGreaterThanOrEqual(0);
      left.splice(at, 1);
    }
  });

  it("scores per-agent usage as the attribution has it, tokens unreported where the tracer reports none", () => {
    for (const t of traces) {
      for (const row of t.record.agents) {
        const a = t.attribution.agents.find((x) => x.name === row.agent);
        expect({ agent: row.agent, input: row.inputTokens, output: row.outputTokens, reported: row.tokensReported }).toEqual({
          agent: row.agent,
          input: a?.inputTokens,
          output: a?.outputTokens,
          reported: expected.tokensReported,
        });
      }
    }
  });
});
