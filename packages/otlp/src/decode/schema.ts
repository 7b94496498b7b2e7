/**
 * The wire tags the protobuf decoder switches on, derived at module load from
 * the protobufjs reflection of the bundled .proto files (src/proto.ts), so
 * those files are the single source of truth for field numbers and types.
 * Field names are protobufjs's camelCase forms (trace_id → traceId).
 */
import protobuf from "protobufjs";
import {
  AnyValueType,
  ArrayValueType,
  ExportTraceServiceRequestType,
  InstrumentationScopeType,
  KeyValueListType,
  KeyValueType,
  ResourceSpansType,
  ResourceType,
  ScopeSpansType,
  SpanEventType,
  SpanLinkType,
  SpanType,
  StatusType,
} from "../proto.ts";
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from "./wire.ts";

type ByName<N extends string> = { readonly [K in N]: number };

function fieldOf(type: protobuf.Type, name: string): protobuf.Field {
  const field = type.fields[name];
  if (!field) throw new Error(`${type.fullName} has no field ${name} in the bundled .proto files`);
  return field;
}

const basicWireTypes = protobuf.types.basic as unknown as Readonly<Record<string, number | undefined>>;

/** The wire type of a non-packed value of `field` (all fields the decoder reads are singular or repeated messages). */
function wireTypeOf(field: protobuf.Field): number {
  field.resolve();
  if (field.resolvedType instanceof protobuf.Type) return WIRE_LEN;
  if (field.resolvedType instanceof protobuf.Enum) return WIRE_VARINT;
  const wireType = basicWireTypes[field.type];
  if (wireType === undefined) throw new Error(`unsupported field type ${field.type} for ${field.fullName}`);
  if (field.repeated && wireType !== WIRE_LEN) throw new Error(`packed repeated ${field.fullName} is not supported`);
  return wireType;
}

/** Field numbers of the named fields of `type`; throws at load if one is missing. */
export function fieldIds<const N extends string>(type: protobuf.Type, names: readonly N[]): ByName<N> {
  const ids = {} as Record<N, number>;
  for (const name of names) ids[name] = fieldOf(type, name).id;
  return Object.freeze(ids);
}

/** Tags `(field number << 3) | wire type` of the named fields of `type`. */
export function fieldTags<const N extends string>(type: protobuf.Type, names: readonly N[]): ByName<N> {
  const tags = {} as Record<N, number>;
  for (const name of names) {
    const field = fieldOf(type, name);
    tags[name] = ((field.id << 3) | wireTypeOf(field)) >>> 0;
  }
  return Object.freeze(tags);
}

export const REQUEST_TAG = fieldTags(ExportTraceServiceRequestType, ["resourceSpans"]);
export const RESOURCE_SPANS_TAG = fieldTags(ResourceSpansType, ["resource", "scopeSpans"]);
export const RESOURCE_TAG = fieldTags(ResourceType, ["attributes"]);
export const SCOPE_SPANS_TAG = fieldTags(ScopeSpansType, ["scope", "spans"]);
export const SCOPE_TAG = fieldTags(InstrumentationScopeType, ["name", "version", "attributes"]);
export const SPAN_TAG = fieldTags(SpanType, [
  "traceId",
  "spanId",
  "traceState",
  "parentSpanId",
  "flags",
  "name",
  "kind",
  "startTimeUnixNano",
  "endTimeUnixNano",
  "attributes",
  "droppedAttributesCount",
  "events",
  "droppedEventsCount",
  "links",
  "droppedLinksCount",
  "status",
]);
export const STATUS_TAG = fieldTags(StatusType, ["message", "code"]);
export const EVENT_TAG = fieldTags(SpanEventType, ["timeUnixNano", "name", "attributes", "droppedAttributesCount"]);
export const LINK_TAG = fieldTags(SpanLinkType, ["traceId", "spanId", "traceState", "attributes", "flags"]);
export const KEY_VALUE_TAG = fieldTags(KeyValueType, ["key", "value"]);
export const ANY_VALUE_TAG = fieldTags(AnyValueType, ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"]);
export const ARRAY_VALUE_TAG = fieldTags(ArrayValueType, ["values"]);
export const KEY_VALUE_LIST_TAG = fieldTags(KeyValueListType, ["values"]);

// The decoder reads these as fixed-width halves or doubles; fail at load if the schema says otherwise.
for (const [tag, wireType, what] of [
  [SPAN_TAG.startTimeUnixNano, WIRE_FIXED64, "Span.start_time_unix_nano"],
  [SPAN_TAG.endTimeUnixNano, WIRE_FIXED64, "Span.end_time_unix_nano"],
  [EVENT_TAG.timeUnixNano, WIRE_FIXED64, "Span.Event.time_unix_nano"],
  [ANY_VALUE_TAG.doubleValue, WIRE_FIXED64, "AnyValue.double_value"],
  [SPAN_TAG.flags, WIRE_FIXED32, "Span.flags"],
  [LINK_TAG.flags, WIRE_FIXED32, "Span.Link.flags"],
] as const) {
  if ((tag & 7) !== wireType) throw new Error(`${what} has wire type ${tag & 7} in the .proto files, expected ${wireType}`);
}

/**
 * A tag → code table for the hot switches. A switch over the derived tags
 * compiles to a chain of comparisons; a switch over small literal codes
 * (1..255, 0 = unknown field) compiles to a jump table, which keeps the
 * decoder as fast as it was with literal tags.
 */
export function tagDispatch(entries: ReadonlyArray<readonly [tag: number, code: number]>): Uint8Array {
  const table = new Uint8Array(Math.max(...entries.map(([tag]) => tag)) + 1);
  for (const [tag, code] of entries) {
    if (code < 1 || code > 255 || table[tag] !== 0) throw new Error(`bad dispatch entry ${tag} → ${code}`);
    table[tag] = code;
  }
  return table;
}

/** The code of `tag` in a tagDispatch table, 0 when the tag is not in it. */
export function dispatchCode(table: Uint8Array, tag: number): number {
  return tag < table.length ? table[tag]! : 0;
}
