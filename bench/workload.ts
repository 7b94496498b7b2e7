/**
 * Synthetic but realistic multi-agent traces for benchmarks: ~50 spans per
 * trace (an orchestrator, three workers, LLM calls with token usage, tool
 * calls, a handoff tool per worker, one failing tool), 1 KB of message
 * content on every fifth span. Serialized with the real OTLP serializer.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { recordSpans, toProtobuf } from "@crux/testkit";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

const CONTENT = JSON.stringify([{ role: "user", parts: [{ type: "text", content: "lorem ipsum dolor sit amet ".repeat(38) }] }]).slice(0, 1024);

function emitTrace(tracer: Tracer, startMs: number) {
  let t = startMs;
  let n = 0;
  const start = (name: string, parent: Span | null, attrs: Record<string, string | number>, kind = SpanKind.INTERNAL) => {
    n++;
    if (n % 5 === 0) attrs["gen_ai.input.messages"] = CONTENT;
    return tracer.startSpan(name, { kind, attributes: attrs, startTime: (t += 3) }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
  };
  const chat = (parent: Span, i: number) =>
    start(
      "chat gpt-4o",
      parent,
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 500 + i,
        "gen_ai.usage.output_tokens": 80 + i,
      },
      SpanKind.CLIENT,
    ).end((t += 20));
  const root = start("invoke_agent orchestrator", null, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "orchestrator" });
  chat(root, 0);
  for (const worker of ["researcher", "coder", "reviewer"]) {
    const handoff = start(`execute_tool transfer_to_${worker}`, root, { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": `transfer_to_${worker}` });
    const agent = start(`invoke_agent ${worker}`, handoff, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": worker });
    for (let i = 0; i < 7; i++) {
      chat(agent, i);
      const tool = start("execute_tool search", agent, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": i % 2 ? "search" : "read_file",
        "gen_ai.tool.call.id": `call_${i}`,
        "gen_ai.tool.call.arguments": `{"q":"item ${i}"}`,
      });
      if (worker === "coder" && i === 3) tool.setStatus({ code: SpanStatusCode.ERROR, message: "tool failed" });
      tool.end((t += 10));
    }
    agent.end((t += 2));
    handoff.end((t += 1));
  }
  chat(root, 1);
  root.end((t += 2));
}

/** Builds `batches` protobuf requests of `batchSize` spans each (whole traces, cut at the batch size). */
export function buildPayloads(batches: number, batchSize = 512, startMs = Date.now() - 3_600_000): { payloads: Uint8Array[]; spans: number } {
  const all: ReadableSpan[] = recordSpans((tracer) => {
    let emitted = 0;
    let i = 0;
    while (emitted < batches * batchSize) {
      emitTrace(tracer, startMs + i++ * 10_000);
      emitted += 50;
    }
  }, "bench-crew");
  const payloads: Uint8Array[] = [];
  for (let b = 0; b < batches; b++) payloads.push(toProtobuf(all.slice(b * batchSize, (b + 1) * batchSize)));
  return { payloads, spans: batches * batchSize };
}
