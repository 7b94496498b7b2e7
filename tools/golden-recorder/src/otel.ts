/**
 * In-memory OpenTelemetry plumbing shared by the scenarios: a tracer provider
 * whose finished spans land in an InMemorySpanExporter, and the OTLP/JSON
 * serialization of those spans (the same bytes an OTLP/HTTP JSON exporter sends).
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { scrubExport } from "./scrub.ts";

/** An OTLP/JSON ExportTraceServiceRequest as parsed JSON (camelCase keys, hex ids, int64 as strings). */
export interface ExportJson {
  resourceSpans: ExportResourceSpans[];
}
interface ExportResourceSpans {
  resource?: { attributes?: ExportKeyValue[] };
  scopeSpans: Array<{ scope?: { name?: string; version?: string }; spans: ExportSpan[] }>;
}
interface ExportKeyValue {
  key: string;
  value: Record<string, unknown>;
}
export interface ExportSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: ExportKeyValue[];
  events?: Array<{ name: string; timeUnixNano: string | number; attributes?: ExportKeyValue[] }>;
  status?: { code?: number; message?: string };
}

let contextManagerInstalled = false;

/**
 * Nested agent calls only become child spans when the active context follows
 * async calls, so install an AsyncLocalStorage context manager once per process.
 */
export function ensureAsyncContext(): void {
  if (contextManagerInstalled) return;
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  // Returns false when another manager is already global (e.g. a framework set one); that one also follows async calls.
  context.setGlobalContextManager(manager);
  contextManagerInstalled = true;
}

export interface SpanRecorder {
  provider: BasicTracerProvider;
  exporter: InMemorySpanExporter;
  /** Flushes, serializes every finished span as OTLP/JSON, scrubs machine-specific values, and shuts the provider down. */
  finish(): Promise<ExportJson>;
}

export function createSpanRecorder(serviceName: string): SpanRecorder {
  ensureAsyncContext();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    // Only service.name: no host/process detectors, so nothing machine-specific enters the resource.
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return {
    provider,
    exporter,
    async finish() {
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      const json = serializeSpans(spans);
      await provider.shutdown();
      return json;
    },
  };
}

export function serializeSpans(spans: readonly ReadableSpan[]): ExportJson {
  const bytes = JsonTraceSerializer.serializeRequest([...spans]);
  if (!bytes) throw new Error("JsonTraceSerializer returned no bytes");
  return scrubExport(JSON.parse(new TextDecoder().decode(bytes)) as ExportJson);
}

/** Every span of an export, flattened, for assertions. */
export function allSpans(json: ExportJson): ExportSpan[] {
  return json.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
}

/** Reads one attribute of a span as a plain JS value (string/int/double/bool; arrays as JSON-ish arrays). */
export function attr(span: ExportSpan, key: string): unknown {
  const kv = span.attributes?.find((a) => a.key === key);
  return kv ? anyValue(kv.value) : undefined;
}

function anyValue(v: Record<string, unknown>): unknown {
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return v.doubleValue;
  if ("boolValue" in v) return v.boolValue;
  if ("arrayValue" in v) {
    const values = (v.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? [];
    return values.map(anyValue);
  }
  return undefined;
}

/** Sums a numeric attribute over spans (missing values count as 0). */
export function sumAttr(spans: readonly ExportSpan[], key: string): number {
  return spans.reduce((total, s) => total + (Number(attr(s, key)) || 0), 0);
}
