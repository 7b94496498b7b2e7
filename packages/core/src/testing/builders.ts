/**
 * Deterministic span builders for tests (docs/engineering.md §9): fixed ids and
 * timestamps, so the same call builds the same span on every run. Tests set
 * only the fields they are about; everything else is a neutral default.
 * Pure: no clock, no randomness.
 */
import type { DecodedSpan, NormalizedSpan, SpanContent, SpanEvent, SpanRunTags, SpanText } from "../span.ts";

/** The trace id a span gets unless the test sets one (W3C example id). */
export const TEST_TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
/** The span id a span gets unless the test sets one. */
export const TEST_SPAN_ID = "b7ad6b7169203331";
/** Start of every test timeline: 2023-11-14T22:13:20Z in Unix nanoseconds. */
export const TEST_BASE_NS = 1_700_000_000_000_000_000n;
export const NS_PER_MS = 1_000_000n;

/** The n-th trace id: n in hex, zero-padded to 32 characters. */
export function traceIdOf(n: number): string {
  return n.toString(16).padStart(32, "0");
}

/** The n-th span id: n in hex, zero-padded to 16 characters. */
export function spanIdOf(n: number): string {
  return n.toString(16).padStart(16, "0");
}

/** `ms` milliseconds (fractions allowed, rounded to the nanosecond) after `base`, in Unix nanoseconds. */
export function nsAt(ms: number, base: bigint = TEST_BASE_NS): bigint {
  return base + BigInt(Math.round(ms * 1_000_000));
}

/** A root, internal, unset-status span of service "svc", lasting one second from TEST_BASE_NS. */
export function decodedSpan(overrides: Partial<DecodedSpan> = {}): DecodedSpan {
  return {
    traceId: TEST_TRACE_ID,
    spanId: TEST_SPAN_ID,
    parentSpanId: null,
    traceState: "",
    flags: 1,
    name: "step",
    kind: 1,
    startTimeUnixNano: TEST_BASE_NS,
    endTimeUnixNano: TEST_BASE_NS + 1_000n * NS_PER_MS,
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: 0, message: "" },
    resource: { "service.name": "svc" },
    scope: { name: "test", version: "", attributes: {} },
    limitsApplied: { truncatedKeys: [], droppedAttributes: 0 },
    ...overrides,
  };
}

/** Content of a span that captured none (text aside). */
const NO_CONTENT: Omit<SpanContent, "text"> = {
  handoffMessage: null,
  finishReasons: [],
  endReasons: [],
  verdicts: [],
  exceptions: [],
  handoffBackLink: null,
};

const NO_RUN_TAGS: SpanRunTags = {
  success: null,
  score: null,
  taskId: null,
  goal: null,
  variant: null,
  isBaseline: null,
  experimentId: null,
  seed: null,
  trial: null,
  activeAgents: null,
  replayId: null,
};

/** What a test may set on a normalized span: any field, and only the content and run tags it is about. */
export type NormalizedSpanOverrides = Partial<Omit<NormalizedSpan, "content" | "runTags">> & {
  /** The text fields (input, output, toolArgs) given as values; text() returns them. */
  content?: Partial<SpanText> & Partial<Omit<SpanContent, "text">>;
  runTags?: Partial<SpanRunTags>;
};

/**
 * decodedSpan()'s defaults plus an "other" operation with no GenAI fields
 * read, no content and no run tags. Content and run tags are set in canonical
 * form, as the normalizer derives them (which attribute holds them is
 * packages/otlp's subject and tested there).
 */
export function normalizedSpan(overrides: NormalizedSpanOverrides = {}): NormalizedSpan {
  const { content = {}, runTags, ...fields } = overrides;
  const { input = null, output = null, toolArgs = null, ...rest } = content;
  const text: SpanText = { input, output, toolArgs };
  return {
    ...decodedSpan(),
    operation: "other",
    convention: "otel_genai",
    serviceName: "svc",
    agentName: null,
    agentId: null,
    model: null,
    provider: null,
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    cost: null,
    toolName: null,
    toolCallId: null,
    handoffFrom: null,
    handoffTo: null,
    errorType: null,
    isError: false,
    conversationId: null,
    tags: {},
    ...fields,
    content: { ...NO_CONTENT, ...rest, text: () => text },
    runTags: { ...NO_RUN_TAGS, ...runTags },
  };
}

/** An OTel `exception` span event, by default half-way through decodedSpan()'s second. */
export function exceptionEvent(type: string, message: string, timeUnixNano: bigint = nsAt(500)): SpanEvent {
  return {
    timeUnixNano,
    name: "exception",
    attributes: { "exception.type": type, "exception.message": message },
    droppedAttributesCount: 0,
  };
}
