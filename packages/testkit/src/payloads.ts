/**
 * OTLP request bodies produced by the real SDK and serializers
 * (@opentelemetry/otlp-transformer), for tests that post raw payloads.
 */
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";

export function recordSpans(emit: (tracer: Tracer) => void, serviceName = "payload-test"): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  emit(provider.getTracer("crux-testkit"));
  return exporter.getFinishedSpans();
}

export function toProtobuf(spans: ReadableSpan[]): Uint8Array {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error("protobuf serialization failed");
  return bytes;
}

export function toJson(spans: ReadableSpan[]): string {
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error("json serialization failed");
  return new TextDecoder().decode(bytes);
}

/**
 * A run as an experiment runner exports it: run tags (docs/conventions.md §7) on a root span and,
 * under it, an agent span with one LLM call per acting agent.
 */
export interface TaggedRun {
  /** Run tags: crux.<key> attributes on the root span (experimentId → crux.experiment.id, replayId → crux.replay.id). */
  experimentId?: string;
  replayId?: string;
  variant?: string;
  taskId?: string;
  trial?: number;
  /** crux.agents.active as sent: a string array or a comma-separated string. */
  activeAgents?: string[] | string;
  baseline?: boolean;
  success: boolean;
  /** Further root span attributes, such as the tags a runner was dispatched with. */
  attributes?: Attributes;
  /** Agents that act in the run (default: the active agents, else one "solo" agent). */
  agents?: string[];
  /** The root span's agent (default "orchestrator"); null for a root span named "run" that is no agent. */
  rootAgent?: string | null;
  /** Each LLM call's token usage (default 400 in, 100 out). */
  tokens?: { input: number; output: number };
  startMs: number;
}

/** Emits one tagged run; returns its trace id. */
function emitTaggedRun(tracer: Tracer, run: TaggedRun): string {
  // A Date, not a number: the SDK reads a number before its process started as performance time.
  const at = (ms: number) => new Date(ms);
  const under = (parent: Span) => trace.setSpan(ROOT_CONTEXT, parent);
  const endOk = (span: Span, ms: number) => {
    span.setStatus({ code: SpanStatusCode.OK });
    span.end(at(ms));
  };
  const agents = run.agents ?? (Array.isArray(run.activeAgents) ? run.activeAgents : (run.activeAgents?.split(",") ?? ["solo"]));
  const rootAgent = run.rootAgent === undefined ? "orchestrator" : run.rootAgent;
  const rootAttributes: Attributes = {
    ...run.attributes,
    ...(run.experimentId === undefined ? {} : { "crux.experiment.id": run.experimentId }),
    ...(run.replayId === undefined ? {} : { "crux.replay.id": run.replayId }),
    ...(run.variant === undefined ? {} : { "crux.variant": run.variant }),
    ...(run.taskId === undefined ? {} : { "crux.task.id": run.taskId }),
    ...(run.trial === undefined ? {} : { "crux.trial": run.trial }),
    ...(run.activeAgents === undefined ? {} : { "crux.agents.active": run.activeAgents }),
    ...(run.baseline === true ? { "crux.baseline": true } : {}),
    "crux.outcome.success": run.success,
  };
  const root = tracer.startSpan(rootAgent === null ? "run" : `invoke_agent ${rootAgent}`, {
    kind: SpanKind.INTERNAL,
    startTime: at(run.startMs),
    attributes: rootAgent === null ? rootAttributes : { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": rootAgent, ...rootAttributes },
  });
  agents.forEach((agent, i) => {
    const start = run.startMs + 10 + i * 400;
    const span = tracer.startSpan(
      `invoke_agent ${agent}`,
      { kind: SpanKind.INTERNAL, startTime: at(start), attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent } },
      under(root),
    );
    const chat = tracer.startSpan(
      "chat gpt-4o-mini",
      {
        kind: SpanKind.CLIENT,
        startTime: at(start + 10),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.system": "openai",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.usage.input_tokens": run.tokens?.input ?? 400,
          "gen_ai.usage.output_tokens": run.tokens?.output ?? 100,
        },
      },
      under(span),
    );
    endOk(chat, start + 200);
    endOk(span, start + 300);
  });
  endOk(root, run.startMs + 900);
  return root.spanContext().traceId;
}

/** One OTLP/JSON export request holding the runs; their trace ids in order. */
export function taggedRunsExport(runs: readonly TaggedRun[], serviceName = "experiment-runner"): { body: string; traceIds: string[] } {
  const traceIds: string[] = [];
  const spans = recordSpans((tracer) => runs.forEach((run) => traceIds.push(emitTaggedRun(tracer, run))), serviceName);
  return { body: toJson(spans), traceIds };
}
