/**
 * Golden traces: OTLP/JSON exports recorded from real agent frameworks
 * (tools/golden-recorder) run through decode -> normalize -> attributeAgents,
 * and checked against expected.json, which was written by hand from each
 * scenario's script (agents, per-agent tokens, tool calls, real errors, handoffs).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { NormalizedSpan } from "@crux/core";
import { attributeAgents } from "../../core/src/attribution/index.ts";
import type { TraceAttribution } from "../../core/src/attribution/types.ts";
import { decodeExportRequest } from "../src/decode/index.ts";
import { normalizeSpans, addContent } from "../src/normalize/index.ts";

interface ExpectedAgent {
  name: string;
  inputTokens: number;
  outputTokens: number;
  toolCalls: string[];
  handoffTools?: string[];
  llmCalls?: number;
  /** Cached input tokens (part of inputTokens), where the scenario scripts them. */
  cachedTokens?: number;
  /** Tracer-reported USD cost, where the scenario scripts it (null: none reported). */
  cost?: number | null;
}
interface Expected {
  framework: string;
  agents: ExpectedAgent[];
  totals: { inputTokens: number; outputTokens: number };
  realErrors: Array<{ spanName: string; toolName: string; agent: string }>;
  errorStatusSpansThatAreNotFailures: Array<{ spanName: string; count: number }>;
  errorPropagatesToAncestors: boolean;
  handoffs: Array<{ from: string; to: string }>;
}

const goldenRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden");
const cases = readdirSync(goldenRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .filter((name) => existsSync(path.join(goldenRoot, name, "export.json")) && existsSync(path.join(goldenRoot, name, "expected.json")))
  .sort();

const sorted = (xs: readonly string[]): string[] => [...xs].sort();

it("has a golden recording for each recorded framework (and the framework-less group chat)", () => {
  const frameworks = new Set(cases.map((c) => c.replace(/-\d{4}-\d{2}-\d{2}$/, "")));
  expect(sorted([...frameworks])).toEqual(["group-chat", "langfuse", "langgraph", "langgraph-repeat", "mastra", "mastra-repeat", "openai-agents", "vercel-ai"]);
});

describe.each(cases)("golden %s", (caseName) => {
  const dir = path.join(goldenRoot, caseName);
  const expected = JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) as Expected;
  const rawSpanCount = (
    JSON.parse(readFileSync(path.join(dir, "export.json"), "utf8")) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> }
  ).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)).length;

  let spans: NormalizedSpan[] = [];
  let rejected = 0;
  let attribution: TraceAttribution;
  /** Agent name owning each span (null when none). */
  const ownerName = (spanId: string): string | null => {
    const key = attribution.bySpan.get(spanId)?.agentKey ?? null;
    return key === null ? null : (attribution.agents.find((a) => a.key === key)?.name ?? null);
  };

  beforeAll(() => {
    const decoded = decodeExportRequest(new Uint8Array(readFileSync(path.join(dir, "export.json"))), "json");
    rejected = decoded.rejectedSpans;
    spans = normalizeSpans(decoded.spans).map(addContent);
    attribution = attributeAgents(spans);
  });

  it("decodes every recorded span", () => {
    expect(rejected).toBe(0);
    expect(spans.length).toBe(rawSpanCount);
  });

  it("finds exactly the scenario's agents", () => {
    expect(sorted(attribution.agents.map((a) => a.name))).toEqual(sorted(expected.agents.map((a) => a.name)));
  });

  it("attributes each agent's own input/output tokens", () => {
    const actual = Object.fromEntries(attribution.agents.map((a) => [a.name, { input: a.inputTokens, output: a.outputTokens }]));
    const wanted = Object.fromEntries(expected.agents.map((a) => [a.name, { input: a.inputTokens, output: a.outputTokens }]));
    expect(actual).toEqual(wanted);
  });

  it("attributes each agent's cached tokens and reported cost where the script has them", () => {
    for (const wanted of expected.agents) {
      const agent = attribution.agents.find((a) => a.name === wanted.name);
      if (wanted.cachedTokens !== undefined)
        expect({ agent: wanted.name, cached: agent?.cachedTokens }).toEqual({ agent: wanted.name, cached: wanted.cachedTokens });
      if (wanted.cost !== undefined) expect({ agent: wanted.name, cost: agent?.cost }).toEqual({ agent: wanted.name, cost: wanted.cost });
    }
  });

  it("sums trace totals without double counting", () => {
    expect({ input: attribution.totals.inputTokens, output: attribution.totals.outputTokens }).toEqual({
      input: expected.totals.inputTokens,
      output: expected.totals.outputTokens,
    });
  });

  it("attributes tool calls (not handoffs) to the agent that made them", () => {
    const actual: Record<string, string[]> = Object.fromEntries(expected.agents.map((a) => [a.name, []]));
    for (const s of spans) {
      if (s.operation !== "tool") continue;
      const owner = ownerName(s.spanId) ?? "<none>";
      (actual[owner] ??= []).push(s.toolName ?? `<unnamed ${s.name}>`);
    }
    const wanted = Object.fromEntries(expected.agents.map((a) => [a.name, sorted(a.toolCalls)]));
    expect(Object.fromEntries(Object.entries(actual).map(([k, v]) => [k, sorted(v)]))).toEqual(wanted);
    const counts = Object.fromEntries(attribution.agents.map((a) => [a.name, a.toolCalls]));
    expect(counts).toEqual(Object.fromEntries(expected.agents.map((a) => [a.name, a.toolCalls.length])));
  });

  it("counts each agent's LLM calls", () => {
    const withCounts = expected.agents.filter((a) => a.llmCalls !== undefined);
    const actual = Object.fromEntries(attribution.agents.filter((a) => withCounts.some((w) => w.name === a.name)).map((a) => [a.name, a.llmCalls]));
    expect(actual).toEqual(Object.fromEntries(withCounts.map((a) => [a.name, a.llmCalls])));
  });

  it("marks only the failing tool as a real error", () => {
    const errors = spans.filter((s) => s.isError).map((s) => ({ spanName: s.name, toolName: s.toolName, agent: ownerName(s.spanId) }));
    // No framework recorded here propagates the tool's error status to its ancestors (expected.errorPropagatesToAncestors).
    expect(expected.errorPropagatesToAncestors).toBe(false);
    expect(errors).toEqual(expected.realErrors.map((e) => ({ spanName: e.spanName, toolName: e.toolName, agent: e.agent })));
  });

  it("does not count control-flow error statuses (handoff ParentCommand) as failures", () => {
    for (const quiet of expected.errorStatusSpansThatAreNotFailures) {
      const matching = spans.filter((s) => s.name === quiet.spanName && s.status.code === 2);
      expect(matching.length, `error-status spans named ${quiet.spanName}`).toBe(quiet.count);
      expect(matching.filter((s) => s.isError).length, `${quiet.spanName} spans flagged isError`).toBe(0);
    }
    for (const agent of attribution.agents) {
      const wantedErrors = expected.realErrors.filter((e) => e.agent === agent.name).length;
      expect({ agent: agent.name, errors: agent.errors }).toEqual({ agent: agent.name, errors: wantedErrors });
    }
  });

  it("finds every handoff / delegation", () => {
    const pairs = attribution.handoffs.map((h) => `${h.from ?? "?"} -> ${h.to ?? "?"}`);
    for (const h of expected.handoffs) expect(pairs).toContain(`${h.from} -> ${h.to}`);
  });
});
