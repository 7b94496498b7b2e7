/**
 * OpenAI Agents SDK (JS) scenario, traced by the OpenInference bridge
 * (@arizeai/openinference-instrumentation-openai-agents registers itself as the
 * SDK's trace processor and turns SDK spans into OTel spans).
 *
 * triage calls the `classifier` agent as a tool (agent.asTool), then hands off
 * to `billing_specialist` (SDK handoff, tool `transfer_to_billing_specialist`);
 * the specialist's `lookup_invoice` tool throws, then it answers.
 *
 * The model is a scripted implementation of the SDK's Model interface. Like the
 * SDK's own chat-completions model it opens a generation span and records the
 * ChatCompletion-shaped response (with usage) on it; no network is touched.
 */
import * as agents from "@openai/agents";
import { Agent, Runner, Usage, tool, withGenerationSpan, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { OpenAIAgentsInstrumentation } from "@arizeai/openinference-instrumentation-openai-agents";
import { z } from "zod";
import { createSpanRecorder, type ExportJson } from "./otel.ts";

const OPENAI_AGENTS_SERVICE = "golden-openai-agents";

/** Scripted usage of every model call, per agent, in call order (expected.json sums these). */
export const OPENAI_AGENTS_USAGE = {
  triage: [
    { input: 80, output: 15 },
    { input: 140, output: 20 },
  ],
  classifier: [{ input: 40, output: 5 }],
  billing_specialist: [
    { input: 150, output: 25 },
    { input: 230, output: 50 },
  ],
} as const;

type ScriptedTurn =
  | { kind: "tool_call"; callId: string; name: string; args: object; usage: { input: number; output: number } }
  | { kind: "text"; text: string; usage: { input: number; output: number } };

/** A Model that answers its calls from a fixed script, in order, recording a generation span per call. */
class ScriptedModel implements Model {
  private next = 0;
  constructor(
    private readonly modelName: string,
    private readonly script: ScriptedTurn[],
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.script[this.next++];
    if (!turn) throw new Error(`${this.modelName}: script exhausted after ${this.script.length} calls`);
    return withGenerationSpan(async (span) => {
      span.spanData.model = this.modelName;
      span.spanData.model_config = { temperature: 0 };
      const completion = chatCompletionOf(this.modelName, turn);
      if (request.tracing === true) {
        span.spanData.input = [{ role: "user", content: typeof request.input === "string" ? request.input : JSON.stringify(request.input) }];
        span.spanData.output = [completion];
      }
      const usage = new Usage({
        requests: 1,
        inputTokens: turn.usage.input,
        outputTokens: turn.usage.output,
        totalTokens: turn.usage.input + turn.usage.output,
      });
      const output: ModelResponse["output"] =
        turn.kind === "tool_call"
          ? [{ type: "function_call", callId: turn.callId, name: turn.name, arguments: JSON.stringify(turn.args), status: "completed" }]
          : [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.text }] }];
      return { usage, output, responseId: `resp_${this.modelName}_${this.next}` };
    });
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("ScriptedModel does not stream");
  }
}

/** The ChatCompletion object a real chat-completions call would have returned for this turn. */
function chatCompletionOf(model: string, turn: ScriptedTurn): Record<string, unknown> {
  const message =
    turn.kind === "tool_call"
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: turn.callId, type: "function", function: { name: turn.name, arguments: JSON.stringify(turn.args) } }],
        }
      : { role: "assistant", content: turn.text };
  return {
    id: `chatcmpl-${model}`,
    object: "chat.completion",
    model,
    choices: [{ index: 0, message, finish_reason: turn.kind === "tool_call" ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: turn.usage.input, completion_tokens: turn.usage.output, total_tokens: turn.usage.input + turn.usage.output },
  };
}

export async function recordOpenAiAgents(): Promise<ExportJson> {
  const recorder = createSpanRecorder(OPENAI_AGENTS_SERVICE);
  const instrumentation = new OpenAIAgentsInstrumentation({ tracerProvider: recorder.provider });
  // Exclusive mode: replaces the SDK's default exporter (which would post traces to OpenAI).
  instrumentation.manuallyInstrument(agents);
  // The SDK turns tracing off by default when NODE_ENV=test (as under vitest); this scenario exists to trace.
  agents.setTracingDisabled(false);
  const u = OPENAI_AGENTS_USAGE;
  try {
    const lookupInvoice = tool({
      name: "lookup_invoice",
      description: "Fetch an invoice by id",
      parameters: z.object({ invoiceId: z.string() }),
      execute: async ({ invoiceId }): Promise<string> => {
        throw new Error(`invoice service timed out for ${invoiceId}`);
      },
    });

    const classifier = new Agent({
      name: "classifier",
      instructions: "Classify the ticket as billing, technical or other. Answer with one word.",
      model: new ScriptedModel("mock-classifier-1", [{ kind: "text", text: "billing", usage: u.classifier[0] }]),
    });

    const billingSpecialist = new Agent({
      name: "billing_specialist",
      instructions: "Resolve billing questions.",
      tools: [lookupInvoice],
      model: new ScriptedModel("mock-billing-1", [
        { kind: "tool_call", callId: "call_b1", name: "lookup_invoice", args: { invoiceId: "INV-42" }, usage: u.billing_specialist[0] },
        { kind: "text", text: "The invoice system is down; I have opened a ticket for INV-42.", usage: u.billing_specialist[1] },
      ]),
    });

    const triage = new Agent({
      name: "triage",
      instructions: "Classify the request, then hand off to the right specialist.",
      tools: [classifier.asTool({ toolName: "classify_ticket", toolDescription: "Classify a support ticket" })],
      handoffs: [billingSpecialist],
      model: new ScriptedModel("mock-triage-1", [
        { kind: "tool_call", callId: "call_t1", name: "classify_ticket", args: { input: "Why was I charged twice on INV-42?" }, usage: u.triage[0] },
        { kind: "tool_call", callId: "call_t2", name: "transfer_to_billing_specialist", args: {}, usage: u.triage[1] },
      ]),
    });

    const runner = new Runner({ workflowName: "support_desk", tracingDisabled: false });
    await runner.run(triage, "Why was I charged twice on INV-42?");
    await agents.getGlobalTraceProvider().forceFlush();
  } finally {
    instrumentation.uninstrument?.();
  }
  return recorder.finish();
}
