/**
 * A realistic multi-agent trace emitted through the real OpenTelemetry SDK
 * with OTel GenAI attributes: an orchestrator hands off to a researcher
 * (transfer tool + nested invoke_agent), whose web_search tool fails, then
 * delegates to a writer. Known token figures make per-agent totals checkable.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";

export const MULTI_AGENT_EXPECTED = {
  agents: ["orchestrator", "researcher", "writer"],
  tokens: {
    orchestrator: { input: 120 + 60, output: 30 + 10 },
    researcher: { input: 200 + 240, output: 50 + 40 },
    writer: { input: 300, output: 150 },
  },
  // transfer_to_* tools are handoffs, not tool calls (docs/conventions.md §4.1).
  tools: { orchestrator: [], researcher: ["web_search", "web_search"], writer: ["save_file"] },
  handoffs: [
    ["orchestrator", "researcher"],
    ["orchestrator", "writer"],
  ],
  failingTool: "web_search",
  spanCount: 13,
} as const;

export interface ScenarioOptions {
  /** Base time in ms since epoch; spans are laid out after it. */
  startMs: number;
}

export function emitMultiAgentTrace(tracer: Tracer, opts: ScenarioOptions): { traceId: string } {
  let t = opts.startMs;
  const at = (deltaMs: number) => (t += deltaMs);
  const child = (parent: Span, name: string, kind: SpanKind, attributes: Record<string, string | number | boolean | string[]>) =>
    tracer.startSpan(name, { kind, attributes, startTime: at(5) }, trace.setSpan(ROOT_CONTEXT, parent));
  const chat = (parent: Span, agent: string, input: number, output: number) => {
    const s = child(parent, "chat gpt-4o-mini", SpanKind.CLIENT, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
      "gen_ai.usage.input_tokens": input,
      "gen_ai.usage.output_tokens": output,
      // Propagated by some tracers: must not create a phantom agent.
      "gen_ai.agent.name": agent,
    });
    s.end(at(40));
  };
  const tool = (parent: Span, name: string, args: object, fail = false) => {
    const s = child(parent, `execute_tool ${name}`, SpanKind.INTERNAL, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      "gen_ai.tool.call.id": `call_${name}_${t}`,
      "gen_ai.tool.call.arguments": JSON.stringify(args),
    });
    if (fail) {
      s.recordException({ name: "TimeoutError", message: "search backend timed out" }, at(10));
      s.setAttribute("error.type", "TimeoutError");
      s.setStatus({ code: SpanStatusCode.ERROR, message: "search backend timed out" });
    }
    return s;
  };
  const agent = (parent: Span | null, name: string) =>
    tracer.startSpan(
      `invoke_agent ${name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: at(5),
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": name,
          "gen_ai.agent.id": `agent_${name}`,
          "gen_ai.provider.name": "openai",
        },
      },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    );

  const root = agent(null, "orchestrator");
  root.setAttribute("crux.task.id", "task-42");
  chat(root, "orchestrator", 120, 30);

  const toResearcher = tool(root, "transfer_to_researcher", { message: "find sources on solid-state batteries" });
  const researcher = agent(toResearcher, "researcher");
  chat(researcher, "researcher", 200, 50);
  tool(researcher, "web_search", { q: "solid-state batteries 2026" }, true).end(at(100));
  tool(researcher, "web_search", { q: "solid state battery review" }).end(at(80));
  chat(researcher, "researcher", 240, 40);
  researcher.end(at(5));
  toResearcher.end(at(5));

  const toWriter = tool(root, "transfer_to_writer", { message: "write a summary" });
  const writer = agent(toWriter, "writer");
  chat(writer, "writer", 300, 150);
  tool(writer, "save_file", { path: "summary.md" }).end(at(20));
  writer.end(at(5));
  toWriter.end(at(5));

  chat(root, "orchestrator", 60, 10);
  root.end(at(5));
  return { traceId: root.spanContext().traceId };
}
