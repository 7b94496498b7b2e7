/**
 * Vercel AI SDK 6 scenario: an orchestrator (generateText, functionId
 * "orchestrator") whose tools delegate to two sub-agents, each its own
 * generateText with its own functionId and tools. The researcher's
 * `search_web` tool throws. Models are MockLanguageModelV3 from `ai/test`
 * returning scripted tool calls and usage; telemetry is the SDK's own
 * `experimental_telemetry` (legacy ai.* spans).
 */
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { createSpanRecorder, type ExportJson } from "./otel.ts";

// The provider spec types live in @ai-sdk/provider (not a direct dependency); derive them from the mock.
type LanguageModelV3GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const VERCEL_AI_SERVICE = "golden-vercel-ai";

/** Scripted usage of every model call, per agent, in call order (expected.json sums these). */
export const VERCEL_AI_USAGE = {
  orchestrator: [
    { input: 120, output: 18 },
    { input: 210, output: 22 },
    { input: 300, output: 45 },
  ],
  researcher: [
    { input: 55, output: 12 },
    { input: 90, output: 33 },
  ],
  writer: [
    { input: 70, output: 14 },
    { input: 110, output: 60 },
  ],
} as const;

type Usage = { input: number; output: number };

function usageOf(u: Usage): LanguageModelV3GenerateResult["usage"] {
  return {
    inputTokens: { total: u.input, noCache: u.input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: u.output, text: u.output, reasoning: 0 },
  };
}

function toolCallStep(u: Usage, callId: string, toolName: string, input: object): LanguageModelV3GenerateResult {
  return {
    content: [{ type: "tool-call", toolCallId: callId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage: usageOf(u),
    warnings: [],
  };
}

function textStep(u: Usage, text: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: "stop" },
    usage: usageOf(u),
    warnings: [],
  };
}

/** A mock model that answers its calls from a fixed script, in order. */
function scriptedModel(modelId: string, steps: LanguageModelV3GenerateResult[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({ provider: "mock.chat", modelId, doGenerate: steps });
}

export async function recordVercelAi(): Promise<ExportJson> {
  const recorder = createSpanRecorder(VERCEL_AI_SERVICE);
  const tracer = recorder.provider.getTracer("ai");
  const telemetry = (functionId: string) => ({ isEnabled: true, functionId, tracer });
  const u = VERCEL_AI_USAGE;

  const researcherModel = scriptedModel("mock-researcher-1", [
    toolCallStep(u.researcher[0], "call_r1", "search_web", { query: "ISO 8601 week dates" }),
    textStep(u.researcher[1], "Search was unavailable; from memory: ISO weeks start on Monday."),
  ]);
  const writerModel = scriptedModel("mock-writer-1", [
    toolCallStep(u.writer[0], "call_w1", "count_words", { text: "ISO weeks start on Monday." }),
    textStep(u.writer[1], "Summary: ISO 8601 weeks start on Monday (5 words of notes)."),
  ]);
  const orchestratorModel = scriptedModel("mock-orchestrator-1", [
    toolCallStep(u.orchestrator[0], "call_o1", "ask_researcher", { question: "When does an ISO week start?" }),
    toolCallStep(u.orchestrator[1], "call_o2", "ask_writer", { notes: "ISO weeks start on Monday." }),
    textStep(u.orchestrator[2], "ISO 8601 weeks start on Monday."),
  ]);

  const researcherTools = {
    search_web: tool({
      description: "Search the web",
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }): Promise<string> => {
        throw new Error(`search backend unavailable for query "${query}"`);
      },
    }),
  };
  const writerTools = {
    count_words: tool({
      description: "Count the words of a text",
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
    }),
  };

  const orchestratorTools = {
    ask_researcher: tool({
      description: "Delegate a research question to the researcher agent",
      inputSchema: z.object({ question: z.string() }),
      execute: async ({ question }) => {
        const result = await generateText({
          model: researcherModel,
          system: "You are the researcher.",
          prompt: question,
          tools: researcherTools,
          stopWhen: stepCountIs(4),
          experimental_telemetry: telemetry("researcher"),
        });
        return result.text;
      },
    }),
    ask_writer: tool({
      description: "Delegate writing to the writer agent",
      inputSchema: z.object({ notes: z.string() }),
      execute: async ({ notes }) => {
        const result = await generateText({
          model: writerModel,
          system: "You are the writer.",
          prompt: notes,
          tools: writerTools,
          stopWhen: stepCountIs(4),
          experimental_telemetry: telemetry("writer"),
        });
        return result.text;
      },
    }),
  };

  await generateText({
    model: orchestratorModel,
    system: "You are the orchestrator.",
    prompt: "When does an ISO week start? Research it, then have it written up.",
    tools: orchestratorTools,
    stopWhen: stepCountIs(5),
    experimental_telemetry: telemetry("orchestrator"),
  });

  return recorder.finish();
}
