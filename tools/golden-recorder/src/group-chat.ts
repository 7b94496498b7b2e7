/**
 * Group-chat scenario: an orchestrator and specialists taking turns, traced
 * the way AG2's group chat and Magentic-One trace it when no model
 * instrumentation is installed: a root `invoke_agent group_chat_manager` span
 * holding the task, and one `invoke_agent <speaker>` span per turn below it
 * with the turn's text in `gen_ai.output.messages` (and what the speaker was
 * answering in `gen_ai.input.messages`). No LLM or tool child spans, no
 * errors. Emitted with @opentelemetry/sdk-trace-base directly: there is no
 * framework here, the span shape is the subject.
 *
 * Injected failure: the researcher repeats its first (wrong: 2021, not 2023)
 * answer three times however the orchestrator rephrases the request, the
 * verifier approves it, and the run is tagged crux.outcome.success=false.
 */
import { SpanKind, SpanStatusCode, context, trace, type Span } from "@opentelemetry/api";
import { createSpanRecorder, type ExportJson } from "./otel.ts";

const GROUP_CHAT_SERVICE = "golden-group-chat";
export const GROUP_CHAT_TASK = "Find the 2023 population of Lyon and cite the INSEE source";

const REPEATED_ANSWER = "Lyon had about 516,000 inhabitants in 2021 according to INSEE.";

/** The conversation, in speaking order (expected.json is written from this script). */
export const GROUP_CHAT_TURNS: ReadonlyArray<{ speaker: string; text: string }> = [
  { speaker: "orchestrator", text: "Researcher, find the 2023 population of Lyon with its INSEE source." },
  { speaker: "researcher", text: REPEATED_ANSWER },
  { speaker: "orchestrator", text: "We need the 2023 figure specifically, check the latest INSEE release." },
  { speaker: "researcher", text: REPEATED_ANSWER },
  { speaker: "orchestrator", text: "That is still the 2021 number. Search the INSEE 2023 estimates for Lyon." },
  { speaker: "researcher", text: REPEATED_ANSWER },
  { speaker: "orchestrator", text: "Verifier, check the Lyon population figure and its INSEE source." },
  { speaker: "verifier", text: "Approved: the Lyon population figure and its INSEE source look good." },
  { speaker: "orchestrator", text: "Final answer: Lyon had about 516,000 inhabitants according to INSEE." },
];

const message = (role: string, name: string, text: string, finish?: string): Record<string, unknown> => ({
  role,
  name,
  parts: [{ type: "text", content: text }],
  ...(finish === undefined ? {} : { finish_reason: finish }),
});

export async function recordGroupChat(): Promise<ExportJson> {
  const recorder = createSpanRecorder(GROUP_CHAT_SERVICE);
  const tracer = recorder.provider.getTracer("golden-group-chat", "0.1.0");
  // Explicit, increasing times: every turn strictly after the previous one, whatever the clock resolution.
  let clock = Date.now();
  const tick = (): number => (clock += 5);
  const conversationId = "group-chat-1";
  const agentSpan = (name: string, parent: Span | null): Span =>
    tracer.startSpan(
      `invoke_agent ${name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: tick(),
        attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, "gen_ai.conversation.id": conversationId },
      },
      parent === null ? context.active() : trace.setSpan(context.active(), parent),
    );

  const manager = agentSpan("group_chat_manager", null);
  manager.setAttribute("gen_ai.input.messages", JSON.stringify([message("user", "user", GROUP_CHAT_TASK)]));
  let previous: { speaker: string; text: string } = { speaker: "user", text: GROUP_CHAT_TASK };
  for (const turn of GROUP_CHAT_TURNS) {
    const span = agentSpan(turn.speaker, manager);
    span.setAttribute("gen_ai.input.messages", JSON.stringify([message("user", previous.speaker, previous.text)]));
    span.setAttribute("gen_ai.output.messages", JSON.stringify([message("assistant", turn.speaker, turn.text, "stop")]));
    span.setStatus({ code: SpanStatusCode.OK });
    span.end(tick());
    previous = turn;
  }
  const last = GROUP_CHAT_TURNS[GROUP_CHAT_TURNS.length - 1] as { speaker: string; text: string };
  manager.setAttribute("gen_ai.output.messages", JSON.stringify([message("assistant", "group_chat_manager", last.text, "stop")]));
  manager.setAttribute("crux.task.id", "lyon-population");
  manager.setAttribute("crux.outcome.success", false);
  manager.setStatus({ code: SpanStatusCode.OK });
  manager.end(tick());
  return recorder.finish();
}
