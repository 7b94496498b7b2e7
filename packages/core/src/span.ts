/**
 * The span shapes every package agrees on.
 *
 * DecodedSpan is what packages/otlp produces from an OTLP request (protobuf or
 * JSON): ids as lowercase hex, attributes as plain JS values. StoredSpan is a
 * DecodedSpan plus the columns read from whichever GenAI convention the tracer
 * used (docs/conventions.md §4): what ingest writes and the spans table holds.
 * NormalizedSpan, what scoring reads, adds the span's content and run tags in
 * canonical form, re-derived by packages/otlp whenever a span is read (never
 * stored: it would duplicate attribute text). Core reads no attribute key: the
 * keys of every convention live in packages/otlp. All plain data (no I/O, no
 * classes), except SpanContent.text(), a memoized reader of the text content.
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

export interface NormalizedFields {
  operation: OperationKind;
  /** Which convention produced the fields (docs/conventions.md §4.1): a label core stores and shows, never branches on. */
  convention: string;
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
  /** The crux.* run tags as the span (or its resource) carries them, keyed by attribute: stored and shown; scoring reads runTags. */
  tags: Record<string, SpanTagValue>;
}

/** A stored crux.* tag value: a scalar, or a list of strings (crux.agents.active). */
export type SpanTagValue = string | number | boolean | string[];

/** A decoded span and its normalized columns: what ingest writes and the spans table holds. */
export interface StoredSpan extends DecodedSpan, NormalizedFields {}

/** A value read from an attribute whose name is cited in evidence (`crux.end_reason=max_turns`). */
export interface NamedValue {
  key: string;
  value: string;
}

/** A span's text content (docs/conventions.md §4.3); null when nothing was captured. */
export interface SpanText {
  /** What the span took in, as text: a tool or handoff call's arguments, a model's prompt, an agent's task. */
  input: string | null;
  /** What the span produced, as text: a tool's result, a model's completion, an agent's answer. */
  output: string | null;
  /** Arguments of a tool or handoff call, JSON re-serialized with sorted keys (equal arguments compare equal), else their text. */
  toolArgs: string | null;
}

/**
 * A span's content in canonical form (docs/conventions.md §4.3). Content is
 * opt-in for most tracers: every field is null or empty when nothing was
 * captured. Fields core never reads for a span's operation stay empty.
 */
export interface SpanContent {
  /**
   * The text content, read on the first call and kept: it can be large JSON
   * (whole graph states), and most reads need it for few spans (steps,
   * agents) or none (the API's span tree). One reader for the three fields:
   * a reader per field cost more to create, for every span read, than it saved.
   */
  text(): SpanText;
  /** Handoff spans: what the sender passes on (message-like arguments, else all arguments). */
  handoffMessage: string | null;
  /** LLM, tool and handoff spans: finish / stop reasons, lowercased ("stop", "length", "tool_calls"). */
  finishReasons: readonly string[];
  /** Spans other than LLM calls: how the run or agent says it ended, in the convention's precedence order. */
  endReasons: readonly NamedValue[];
  /** LLM, tool and handoff spans: verdicts a verifier recorded, in precedence order. */
  verdicts: readonly NamedValue[];
  /** Exceptions recorded on the span (type and message; "" when absent). */
  exceptions: ReadonlyArray<{ type: string; message: string }>;
  /** Agent spans: the agent that handed off to this one, as the target span names it (a back link). */
  handoffBackLink: string | null;
}

/** The run tags one span carries, parsed (docs/conventions.md §7); null when absent or unparseable. */
export interface SpanRunTags {
  success: boolean | null;
  score: number | null;
  taskId: string | null;
  /** The task statement, verbatim (never trimmed). */
  goal: string | null;
  variant: string | null;
  /** The baseline tag itself; a variant named "baseline" is decided over the run, not here. */
  isBaseline: boolean | null;
  experimentId: string | null;
  seed: string | null;
  /** crux.trial: the run's trial number within its task and variant. */
  trial: number | null;
  /** crux.agents.active: the agents active in this run (an ablation's coalition), sorted and deduplicated. */
  activeAgents: string[] | null;
  /** crux.replay.id: the counterfactual replay this run belongs to. */
  replayId: string | null;
}

export interface NormalizedSpan extends StoredSpan {
  content: SpanContent;
  runTags: SpanRunTags;
}
