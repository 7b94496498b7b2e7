/**
 * Mastra 0.24 scenario: a `supervisor` agent with two sub-agents
 * (`agents: { researcher, writer }`, which Mastra exposes to the supervisor's
 * model as tools `agent-researcher` / `agent-writer`). The researcher's
 * `fetch_sources` tool throws. Tracing is Mastra's AI tracing with the
 * @mastra/otel-exporter OtelExporter; its `exporter` option takes any OTel
 * SpanExporter, so the converted ReadableSpans are collected in memory instead
 * of being posted anywhere.
 *
 * Models are the AI SDK v5 MockLanguageModelV2 (installed as "ai-v5"), the
 * model spec Mastra 0.24 runs, answering from a script with usage.
 */
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { createTool } from "@mastra/core/tools";
import { OtelExporter } from "@mastra/otel-exporter";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { MockLanguageModelV2, simulateReadableStream } from "ai-v5/test";
import { z } from "zod";
import { serializeSpans, type ExportJson } from "./otel.ts";

const MASTRA_SERVICE = "golden-mastra";

/** Scripted usage of every model call, per agent, in call order (expected.json sums these). */
export const MASTRA_USAGE = {
  supervisor: [
    { input: 130, output: 16 },
    { input: 220, output: 19 },
    { input: 310, output: 42 },
  ],
  researcher: [
    { input: 65, output: 11 },
    { input: 100, output: 35 },
  ],
  writer: [
    { input: 75, output: 13 },
    { input: 120, output: 55 },
  ],
} as const;

/**
 * The `repeat` variant: the same run, but the researcher first calls
 * search_carriers({region: "EU", mode: "road"}) three times in a row with
 * identical arguments (a step repetition, FM-1.3), then fetch_sources.
 */
export const MASTRA_REPEAT_USAGE = {
  ...MASTRA_USAGE,
  researcher: [
    { input: 65, output: 11 },
    { input: 80, output: 11 },
    { input: 95, output: 11 },
    { input: 110, output: 11 },
    { input: 140, output: 35 },
  ],
} as const;

/** The arguments the repeat variant's researcher sends search_carriers every time. */
export const REPEATED_SEARCH_ARGS = { region: "EU", mode: "road" } as const;

type Usage = { input: number; output: number };
type ScriptedTurn = { toolCall: { id: string; name: string; args: object }; usage: Usage } | { text: string; usage: Usage };

/** Collects exported spans; unlike InMemorySpanExporter it keeps them through shutdown(). */
class CollectingSpanExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter["export"]>[1]): void {
    this.spans.push(...spans);
    resultCallback({ code: 0 });
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

// The v2 spec types live in @ai-sdk/provider@2 (not a direct dependency); derive them from the mock.
type StreamPart = Awaited<ReturnType<MockLanguageModelV2["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

/** A MockLanguageModelV2 answering each call (streamed or not) with the next turn of its script. */
function scriptedModel(modelId: string, script: ScriptedTurn[]): MockLanguageModelV2 {
  let next = 0;
  const take = (): ScriptedTurn => {
    const turn = script[next++];
    if (!turn) throw new Error(`${modelId}: script exhausted after ${script.length} calls`);
    return turn;
  };
  const usageOf = (u: Usage) => ({ inputTokens: u.input, outputTokens: u.output, totalTokens: u.input + u.output });
  return new MockLanguageModelV2({
    provider: "mock.chat",
    modelId,
    doGenerate: async () => {
      const turn = take();
      return {
        content:
          "toolCall" in turn
            ? [{ type: "tool-call" as const, toolCallId: turn.toolCall.id, toolName: turn.toolCall.name, input: JSON.stringify(turn.toolCall.args) }]
            : [{ type: "text" as const, text: turn.text }],
        finishReason: "toolCall" in turn ? ("tool-calls" as const) : ("stop" as const),
        usage: usageOf(turn.usage),
        warnings: [],
      };
    },
    doStream: async () => {
      const turn = take();
      const chunks: StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if ("toolCall" in turn) {
        chunks.push({ type: "tool-call", toolCallId: turn.toolCall.id, toolName: turn.toolCall.name, input: JSON.stringify(turn.toolCall.args) });
      } else {
        chunks.push({ type: "text-start", id: "t1" }, { type: "text-delta", id: "t1", delta: turn.text }, { type: "text-end", id: "t1" });
      }
      chunks.push({ type: "finish", finishReason: "toolCall" in turn ? "tool-calls" : "stop", usage: usageOf(turn.usage) });
      return { stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
}

export function recordMastra(): Promise<ExportJson> {
  return recordScenario(false);
}

export function recordMastraRepeat(): Promise<ExportJson> {
  return recordScenario(true);
}

async function recordScenario(repeat: boolean): Promise<ExportJson> {
  const collector = new CollectingSpanExporter();
  // The endpoint is required by the config schema but unused: with `exporter` set, nothing is sent.
  const otelExporter = new OtelExporter({ provider: { custom: { endpoint: "http://127.0.0.1:4318/v1/traces", protocol: "http/json" } }, exporter: collector });
  const u = repeat ? MASTRA_REPEAT_USAGE : MASTRA_USAGE;

  const fetchSources = createTool({
    id: "fetch_sources",
    description: "Fetch source documents for a topic",
    inputSchema: z.object({ topic: z.string() }),
    execute: async ({ context }) => {
      throw new Error(`source index offline for topic "${context.topic}"`);
    },
  });
  const searchCarriers = createTool({
    id: "search_carriers",
    description: "Search freight carriers by region and mode",
    inputSchema: z.object({ region: z.string(), mode: z.string() }),
    execute: async ({ context }) => ({ carriers: [`${context.region}-${context.mode}-1`] }),
  });
  const formatText = createTool({
    id: "format_text",
    description: "Format text as a bullet list",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ context }) => ({ formatted: `- ${context.text}` }),
  });

  const researcher = new Agent({
    name: "researcher",
    instructions: "You research topics. Use fetch_sources.",
    model: scriptedModel("mock-researcher-1", [
      ...(repeat
        ? [0, 1, 2].map((i) => ({ toolCall: { id: `call_rs${i + 1}`, name: "search_carriers", args: REPEATED_SEARCH_ARGS }, usage: u.researcher[i] as Usage }))
        : []),
      { toolCall: { id: "call_r1", name: "fetch_sources", args: { topic: "tidal energy" } }, usage: u.researcher[repeat ? 3 : 0] as Usage },
      { text: "Sources unavailable; tidal energy is predictable but site-limited.", usage: u.researcher[repeat ? 4 : 1] as Usage },
    ]),
    tools: repeat ? { search_carriers: searchCarriers, fetch_sources: fetchSources } : { fetch_sources: fetchSources },
  });
  const writer = new Agent({
    name: "writer",
    instructions: "You write short summaries. Use format_text.",
    model: scriptedModel("mock-writer-1", [
      { toolCall: { id: "call_w1", name: "format_text", args: { text: "Tidal energy is predictable but site-limited." } }, usage: u.writer[0] },
      { text: "- Tidal energy is predictable but site-limited.", usage: u.writer[1] },
    ]),
    tools: { format_text: formatText },
  });
  const supervisor = new Agent({
    name: "supervisor",
    instructions: "Delegate research to researcher and writing to writer.",
    model: scriptedModel("mock-supervisor-1", [
      { toolCall: { id: "call_s1", name: "agent-researcher", args: { prompt: "Research tidal energy." } }, usage: u.supervisor[0] },
      {
        toolCall: { id: "call_s2", name: "agent-writer", args: { prompt: "Summarise: tidal energy is predictable but site-limited." } },
        usage: u.supervisor[1],
      },
      { text: "Tidal energy: predictable, but only a few sites suit it.", usage: u.supervisor[2] },
    ]),
    agents: { researcher, writer },
  });

  const mastra = new Mastra({
    agents: { supervisor, researcher, writer },
    logger: false,
    observability: { configs: { otel: { serviceName: MASTRA_SERVICE, exporters: [otelExporter] } } },
  });
  try {
    await mastra.getAgent("supervisor").generate("Give me a short brief on tidal energy.", { maxSteps: 5 });
  } finally {
    // Flushes the exporter's BatchSpanProcessor into the collector.
    await mastra.shutdown();
  }
  return serializeSpans(collector.spans);
}
