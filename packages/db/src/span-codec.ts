/**
 * NormalizedSpan <-> spans row. Writing goes column-wise (one array per column,
 * for the unnest insert); reading rebuilds NormalizedSpan from a drizzle row.
 *
 * Postgres cannot store U+0000 in text or jsonb, nor lone UTF-16 surrogates in
 * jsonb; such characters are replaced with U+FFFD so one odd attribute cannot
 * fail a whole batch (which the exporter would then retry forever).
 */
import type { Attributes, InstrumentationScope, NormalizedSpan, SpanEvent, SpanLink, StatusCode } from "@crux/core";
import type { SpanRow } from "./schema.ts";

type PgArrayType = "text" | "bigint" | "smallint" | "integer" | "double precision" | "boolean" | "jsonb";

export interface SpanColumn {
  /** snake_case column name in the spans table. */
  name: string;
  type: PgArrayType;
  /** Value for the column's parameter array (jsonb as JSON text, bigint as decimal string). */
  value(span: NormalizedSpan): string | number | boolean | null;
}

const INT4_MAX = 2_147_483_647;
const SMALLINT_MAX = 32_767;

/** Token counts that are not a non-negative int4 are left null; the raw attribute is still stored. */
function int4OrNull(n: number | null): number | null {
  return n !== null && Number.isSafeInteger(n) && n >= 0 && n <= INT4_MAX ? n : null;
}
function count(n: number): number {
  return Number.isSafeInteger(n) && n >= 0 ? Math.min(n, INT4_MAX) : 0;
}
function smallint(n: number): number {
  return Number.isSafeInteger(n) && n >= 0 && n <= SMALLINT_MAX ? n : 0;
}
function finiteOrNull(n: number | null): number | null {
  return n !== null && Number.isFinite(n) ? n : null;
}

const NEEDS_CLEANING = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces what Postgres text/jsonb cannot hold (NUL, lone surrogates) with U+FFFD. */
export function cleanText(s: string): string {
  if (!NEEDS_CLEANING.test(s)) return s;
  return s.replaceAll("\u0000", "\uFFFD").replace(LONE_SURROGATE, "\uFFFD");
}
function cleanOptionalText(s: string | null): string | null {
  return s === null ? null : cleanText(s);
}

// JSON.stringify escapes NUL as \u0000 and lone surrogates as \udXXX; valid pairs are emitted raw.
const JSON_NEEDS_CLEANING = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
function deepClean(value: unknown): unknown {
  if (typeof value === "string") return cleanText(value);
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(deepClean);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[cleanText(k)] = deepClean(v);
    return out;
  }
  return value;
}

/** JSON text for a jsonb column: bigint as decimal strings, unstorable characters replaced. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value, bigintAsString);
  // Slow path only when an escape Postgres rejects may be present.
  return JSON_NEEDS_CLEANING.test(text) ? JSON.stringify(deepClean(value)) : text;
}

/** Every spans column except project_id (a scalar parameter) and received_at (defaulted). */
export const spanColumns: readonly SpanColumn[] = [
  { name: "trace_id", type: "text", value: (s) => s.traceId },
  { name: "span_id", type: "text", value: (s) => s.spanId },
  { name: "parent_span_id", type: "text", value: (s) => s.parentSpanId },
  { name: "trace_state", type: "text", value: (s) => cleanText(s.traceState) },
  { name: "flags", type: "bigint", value: (s) => String(s.flags >>> 0) },
  { name: "name", type: "text", value: (s) => cleanText(s.name) },
  { name: "kind", type: "smallint", value: (s) => smallint(s.kind) },
  { name: "start_ns", type: "bigint", value: (s) => s.startTimeUnixNano.toString() },
  { name: "end_ns", type: "bigint", value: (s) => s.endTimeUnixNano.toString() },
  { name: "status_code", type: "smallint", value: (s) => smallint(s.status.code) },
  { name: "status_message", type: "text", value: (s) => cleanText(s.status.message) },
  { name: "service_name", type: "text", value: (s) => cleanOptionalText(s.serviceName) },
  { name: "operation", type: "text", value: (s) => s.operation },
  { name: "convention", type: "text", value: (s) => s.convention },
  { name: "agent_name", type: "text", value: (s) => cleanOptionalText(s.agentName) },
  { name: "agent_id", type: "text", value: (s) => cleanOptionalText(s.agentId) },
  { name: "model", type: "text", value: (s) => cleanOptionalText(s.model) },
  { name: "provider", type: "text", value: (s) => cleanOptionalText(s.provider) },
  { name: "input_tokens", type: "integer", value: (s) => int4OrNull(s.inputTokens) },
  { name: "output_tokens", type: "integer", value: (s) => int4OrNull(s.outputTokens) },
  { name: "cached_tokens", type: "integer", value: (s) => int4OrNull(s.cachedTokens) },
  { name: "cost", type: "double precision", value: (s) => finiteOrNull(s.cost) },
  { name: "tool_name", type: "text", value: (s) => cleanOptionalText(s.toolName) },
  { name: "tool_call_id", type: "text", value: (s) => cleanOptionalText(s.toolCallId) },
  { name: "handoff_from", type: "text", value: (s) => cleanOptionalText(s.handoffFrom) },
  { name: "handoff_to", type: "text", value: (s) => cleanOptionalText(s.handoffTo) },
  { name: "error_type", type: "text", value: (s) => cleanOptionalText(s.errorType) },
  { name: "is_error", type: "boolean", value: (s) => s.isError },
  { name: "conversation_id", type: "text", value: (s) => cleanOptionalText(s.conversationId) },
  { name: "tags", type: "jsonb", value: (s) => toJsonText(s.tags) },
  { name: "attributes", type: "jsonb", value: (s) => toJsonText(s.attributes) },
  { name: "events", type: "jsonb", value: (s) => toJsonText(s.events) },
  { name: "links", type: "jsonb", value: (s) => toJsonText(s.links) },
  { name: "resource", type: "jsonb", value: (s) => toJsonText(s.resource) },
  { name: "scope", type: "jsonb", value: (s) => toJsonText(s.scope) },
  { name: "limits_applied", type: "jsonb", value: (s) => toJsonText(s.limitsApplied) },
  { name: "dropped_attributes_count", type: "integer", value: (s) => count(s.droppedAttributesCount) },
  { name: "dropped_events_count", type: "integer", value: (s) => count(s.droppedEventsCount) },
  { name: "dropped_links_count", type: "integer", value: (s) => count(s.droppedLinksCount) },
];

type StoredEvent = Omit<SpanEvent, "timeUnixNano"> & { timeUnixNano: string };

/** Rebuilds the NormalizedSpan a row was written from. */
export function spanFromRow(row: SpanRow): NormalizedSpan {
  const events = (row.events as StoredEvent[]).map((e) => ({ ...e, timeUnixNano: BigInt(e.timeUnixNano) }));
  return {
    traceId: row.traceId,
    spanId: row.spanId,
    parentSpanId: row.parentSpanId,
    traceState: row.traceState,
    flags: row.flags,
    name: row.name,
    kind: row.kind,
    startTimeUnixNano: row.startNs,
    endTimeUnixNano: row.endNs,
    attributes: row.attributes as Attributes,
    droppedAttributesCount: row.droppedAttributesCount,
    events,
    droppedEventsCount: row.droppedEventsCount,
    links: row.links as SpanLink[],
    droppedLinksCount: row.droppedLinksCount,
    status: { code: row.statusCode as StatusCode, message: row.statusMessage },
    resource: row.resource as Attributes,
    scope: row.scope as InstrumentationScope,
    limitsApplied: row.limitsApplied as NormalizedSpan["limitsApplied"],
    operation: row.operation as NormalizedSpan["operation"],
    convention: row.convention as NormalizedSpan["convention"],
    serviceName: row.serviceName,
    agentName: row.agentName,
    agentId: row.agentId,
    model: row.model,
    provider: row.provider,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cachedTokens: row.cachedTokens,
    cost: row.cost,
    toolName: row.toolName,
    toolCallId: row.toolCallId,
    handoffFrom: row.handoffFrom,
    handoffTo: row.handoffTo,
    errorType: row.errorType,
    isError: row.isError,
    conversationId: row.conversationId,
    tags: row.tags as NormalizedSpan["tags"],
  };
}
