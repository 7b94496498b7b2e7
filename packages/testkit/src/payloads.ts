/**
 * OTLP request bodies produced by the real SDK and serializers
 * (@opentelemetry/otlp-transformer), for tests that post raw payloads.
 */
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { Tracer } from "@opentelemetry/api";

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
