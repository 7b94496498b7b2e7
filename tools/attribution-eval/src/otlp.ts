/**
 * A labelled text log as one OTLP/JSON trace, shaped the way group chats are
 * traced when no model instrumentation is installed (AG2's group chat,
 * Magentic-One): a root `invoke_agent group_chat_manager` span holding the
 * task, one `invoke_agent <speaker>` span per turn below it with the turn's
 * text as its output (and the previous turn as its input), a turn the log
 * records as failed in error status, and the run tagged failed
 * (`crux.outcome.success = false`): every labelled log is a failed run.
 */
import { createHash } from "node:crypto";
import type { LabelledLog } from "./logs.ts";

const MANAGER = "group_chat_manager";
const TURN_NS = 1_000_000n;

type AnyValue = { stringValue: string } | { boolValue: boolean };
const attr = (key: string, value: string | boolean): { key: string; value: AnyValue } => ({
  key,
  value: typeof value === "boolean" ? { boolValue: value } : { stringValue: value },
});
const messages = (role: string, name: string, text: string): string => JSON.stringify([{ role, name, parts: [{ type: "text", content: text }] }]);

const hex = (seed: string, chars: number): string => createHash("sha256").update(seed).digest("hex").slice(0, chars);

export interface ConvertedLog {
  traceId: string;
  /** Span id of each turn, by turn index. */
  turnSpanIds: string[];
  body: { resourceSpans: unknown[] };
}

/** `set` and the log id make the trace id, so one log exported twice is the same trace; `startNs` places its first span. */
export function toOtlp(log: LabelledLog, set: string, startNs: bigint, serviceName = "attribution-eval"): ConvertedLog {
  const traceId = hex(`${set}\u0000${log.id}`, 32);
  const rootId = hex(`${traceId}/root`, 16);
  const turnSpanIds = log.turns.map((_, i) => hex(`${traceId}/turn/${i}`, 16));
  const end = startNs + BigInt(log.turns.length + 2) * TURN_NS;
  const last = log.turns[log.turns.length - 1];
  const root = {
    traceId,
    spanId: rootId,
    name: `invoke_agent ${MANAGER}`,
    kind: 1,
    startTimeUnixNano: startNs.toString(),
    endTimeUnixNano: end.toString(),
    attributes: [
      attr("gen_ai.operation.name", "invoke_agent"),
      attr("gen_ai.agent.name", MANAGER),
      attr("gen_ai.input.messages", messages("user", "user", log.goal)),
      ...(last === undefined ? [] : [attr("gen_ai.output.messages", messages("assistant", MANAGER, last.content))]),
      attr("crux.task.goal", log.goal),
      attr("crux.task.id", log.id),
      attr("crux.outcome.success", false),
    ],
    status: { code: 1 },
  };
  const turns = log.turns.map((turn, i) => {
    const start = startNs + BigInt(i + 1) * TURN_NS;
    const previous = i === 0 ? { agent: "user", content: log.goal } : (log.turns[i - 1] as { agent: string; content: string });
    return {
      traceId,
      spanId: turnSpanIds[i],
      parentSpanId: rootId,
      name: `invoke_agent ${turn.agent}`,
      kind: 1,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (start + TURN_NS / 2n).toString(),
      attributes: [
        attr("gen_ai.operation.name", "invoke_agent"),
        attr("gen_ai.agent.name", turn.agent),
        attr("gen_ai.input.messages", messages("user", previous.agent, previous.content)),
        attr("gen_ai.output.messages", messages(turn.role === "tool" ? "tool" : "assistant", turn.agent, turn.content)),
      ],
      status: turn.error ? { code: 2, message: "the log records this turn as failed" } : { code: 1 },
    };
  });
  return {
    traceId,
    turnSpanIds,
    body: {
      resourceSpans: [
        {
          resource: { attributes: [attr("service.name", serviceName)] },
          scopeSpans: [{ scope: { name: "crux-attribution-eval", version: "0.1.0" }, spans: [root, ...turns] }],
        },
      ],
    },
  };
}
