/**
 * LangGraph JS scenario: a langgraph-supervisor graph ("supervisor") with two
 * createReactAgent workers ("research_expert", "math_expert") reached through
 * the supervisor's handoff tools (transfer_to_*). research_expert's
 * `web_search` tool throws. Traced with the OpenInference LangChain
 * instrumentation (manual instrumentation of @langchain/core/callbacks/manager).
 *
 * The chat model is a scripted BaseChatModel: each call returns the next
 * AIMessage of its script, with tool_calls and usage_metadata, so handoffs and
 * tool calls really happen inside LangGraph.
 */
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import * as CallbackManagerModule from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { z } from "zod";
import { createSpanRecorder, type ExportJson } from "./otel.ts";

const LANGGRAPH_SERVICE = "golden-langgraph";

/** Scripted usage of every model call, per agent, in call order (expected.json sums these). */
export const LANGGRAPH_USAGE = {
  supervisor: [
    { input: 100, output: 10 },
    { input: 180, output: 12 },
    { input: 260, output: 30 },
  ],
  research_expert: [
    { input: 60, output: 14 },
    { input: 95, output: 28 },
  ],
  math_expert: [
    { input: 45, output: 9 },
    { input: 70, output: 16 },
  ],
} as const;

/**
 * The `repeat` variant: the same run, but research_expert first calls
 * search_carriers({region: "EU", mode: "road"}) three times in a row with
 * identical arguments (a step repetition, FM-1.3), then web_search.
 */
export const LANGGRAPH_REPEAT_USAGE = {
  ...LANGGRAPH_USAGE,
  research_expert: [
    { input: 60, output: 14 },
    { input: 72, output: 14 },
    { input: 84, output: 14 },
    { input: 96, output: 14 },
    { input: 120, output: 28 },
  ],
} as const;

/** The arguments the repeat variant's research_expert sends search_carriers every time. */
export const REPEATED_SEARCH_ARGS = { region: "EU", mode: "road" } as const;

type Usage = { input: number; output: number };

type ScriptedReply =
  | { toolCall: { id: string; name: string; args: Record<string, unknown> }; usage: { input: number; output: number } }
  | { text: string; usage: { input: number; output: number } };

/** A chat model that returns its scripted replies in order; tools "bound" to it are ignored (the script already knows them). */
class ScriptedChatModel extends BaseChatModel {
  private next = 0;
  constructor(
    private readonly modelName: string,
    private readonly script: ScriptedReply[],
  ) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  override invocationParams(): Record<string, unknown> {
    return { model: this.modelName, temperature: 0 };
  }

  override bindTools(): this {
    return this;
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const reply = this.script[this.next++];
    if (!reply) throw new Error(`${this.modelName}: script exhausted after ${this.script.length} calls`);
    const usage_metadata = {
      input_tokens: reply.usage.input,
      output_tokens: reply.usage.output,
      total_tokens: reply.usage.input + reply.usage.output,
    };
    const message =
      "toolCall" in reply
        ? new AIMessage({ content: "", tool_calls: [{ ...reply.toolCall, type: "tool_call" }], usage_metadata })
        : new AIMessage({ content: reply.text, usage_metadata });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

export function recordLangGraph(): Promise<ExportJson> {
  return recordScenario(false);
}

export function recordLangGraphRepeat(): Promise<ExportJson> {
  return recordScenario(true);
}

async function recordScenario(repeat: boolean): Promise<ExportJson> {
  const recorder = createSpanRecorder(LANGGRAPH_SERVICE);
  const instrumentation = new LangChainInstrumentation({ tracerProvider: recorder.provider });
  instrumentation.manuallyInstrument(CallbackManagerModule);
  const u = repeat ? LANGGRAPH_REPEAT_USAGE : LANGGRAPH_USAGE;
  try {
    const webSearch = tool(
      async ({ query }: { query: string }): Promise<string> => {
        throw new Error(`search backend unavailable for query "${query}"`);
      },
      { name: "web_search", description: "Search the web", schema: z.object({ query: z.string() }) },
    );
    const searchCarriers = tool(async ({ region, mode }: { region: string; mode: string }) => JSON.stringify({ carriers: [`${region}-${mode}-1`] }), {
      name: "search_carriers",
      description: "Search freight carriers by region and mode",
      schema: z.object({ region: z.string(), mode: z.string() }),
    });
    const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
      name: "add",
      description: "Add two numbers",
      schema: z.object({ a: z.number(), b: z.number() }),
    });

    const researchExpert = createReactAgent({
      name: "research_expert",
      prompt: "You are a researcher. Use web_search.",
      tools: repeat ? [searchCarriers, webSearch] : [webSearch],
      llm: new ScriptedChatModel("mock-research-1", [
        ...(repeat
          ? [0, 1, 2].map((i) => ({
              toolCall: { id: `call_rs${i + 1}`, name: "search_carriers", args: { ...REPEATED_SEARCH_ARGS } },
              usage: u.research_expert[i] as Usage,
            }))
          : []),
        { toolCall: { id: "call_r1", name: "web_search", args: { query: "FAANG headcount 2024" } }, usage: u.research_expert[repeat ? 3 : 0] as Usage },
        { text: "Search failed; rough figures: Meta 67k, Apple 164k.", usage: u.research_expert[repeat ? 4 : 1] as Usage },
      ]),
    });
    const mathExpert = createReactAgent({
      name: "math_expert",
      prompt: "You are a math expert. Use add.",
      tools: [add],
      llm: new ScriptedChatModel("mock-math-1", [
        { toolCall: { id: "call_m1", name: "add", args: { a: 67000, b: 164000 } }, usage: u.math_expert[0] },
        { text: "Together they employ 231000 people.", usage: u.math_expert[1] },
      ]),
    });

    const workflow = createSupervisor({
      supervisorName: "supervisor",
      agents: [researchExpert, mathExpert],
      prompt: "You manage a research expert and a math expert.",
      llm: new ScriptedChatModel("mock-supervisor-1", [
        { toolCall: { id: "call_s1", name: "transfer_to_research_expert", args: {} }, usage: u.supervisor[0] },
        { toolCall: { id: "call_s2", name: "transfer_to_math_expert", args: {} }, usage: u.supervisor[1] },
        { text: "Meta and Apple together employ about 231000 people.", usage: u.supervisor[2] },
      ]),
    });
    const app = workflow.compile();
    await app.invoke({ messages: [new HumanMessage("What is the combined headcount of Meta and Apple?")] });
  } finally {
    instrumentation.disable();
  }
  return recorder.finish();
}
