/**
 * The span shapes every package agrees on.
 *
 * DecodedSpan is what packages/otlp produces from an OTLP request (protobuf or
 * JSON): ids as lowercase hex, attributes as plain JS values. NormalizedSpan is
 * a DecodedSpan plus the columns read from whichever GenAI convention the
 * tracer used (docs/conventions.md §4). Both are plain data: no I/O, no classes.
 */

/** An OTLP AnyValue as plain data. int64 values that do not fit a JS number are kept as decimal strings; bytes as base64 strings. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export interface SpanEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: Attributes;
  droppedAttributesCount: number;
}

export interface SpanLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: Attributes;
  flags: number;
}

export interface InstrumentationScope {
  name: string;
  version: string;
  attributes: Attributes;
}

/** OTLP status codes: 0 unset, 1 ok, 2 error. */
export type StatusCode = 0 | 1 | 2;

export interface DecodedSpan {
  /** 32 lowercase hex characters. */
  traceId: string;
  /** 16 lowercase hex characters. */
  spanId: string;
  /** 16 lowercase hex characters, or null for a root span. */
  parentSpanId: string | null;
  traceState: string;
  flags: number;
  name: string;
  /** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  droppedAttributesCount: number;
  events: SpanEvent[];
  droppedEventsCount: number;
  links: SpanLink[];
  droppedLinksCount: number;
  status: { code: StatusCode; message: string };
  /** Resource attributes, shared by reference between spans of one ResourceSpans. */
  resource: Attributes;
  scope: InstrumentationScope;
  /**
   * What the receiver's limits changed on this span: attribute keys whose value
   * was truncated, and how many attributes were dropped over the per-span cap.
   * Empty when nothing was changed.
   */
  limitsApplied: { truncatedKeys: string[]; droppedAttributes: number };
}

export type OperationKind = "agent" | "llm" | "tool" | "handoff" | "other";

/** Which convention produced a span's normalized fields (docs/conventions.md §4.1). */
export type Convention = "otel_genai" | "openinference" | "openllmetry" | "vercel_ai" | "logfire" | "mastra" | "fallback" | "none";

export interface NormalizedFields {
  operation: OperationKind;
  convention: Convention;
  serviceName: string | null;
  /**
   * For agent spans, the agent's own name. For other spans, the agent name the
   * span itself carries (propagated attributes); the owning agent is decided
   * over the whole tree by attributeAgents(), never from this column alone.
   */
  agentName: string | null;
  agentId: string | null;
  model: string | null;
  provider: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  /** USD cost reported by the tracer, if any. */
  cost: number | null;
  toolName: string | null;
  toolCallId: string | null;
  /** For handoff spans: the agent handing off, and the agent receiving. */
  handoffFrom: string | null;
  handoffTo: string | null;
  /** Set when the span is a real failure (status error, error.type, exception event). */
  errorType: string | null;
  isError: boolean;
  conversationId: string | null;
  /** crux.* run tags and experiment tags read from the span (crux.task.id, crux.variant, ...). */
  tags: Record<string, string | number | boolean>;
}

export interface NormalizedSpan extends DecodedSpan, NormalizedFields {}
