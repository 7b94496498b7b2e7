/**
 * ExportTraceServiceRequest in OTLP/JSON (docs/conventions.md §2.5) → DecodedSpan[].
 * Syntax errors and values of the wrong JSON type fail the whole request
 * (JsonShapeError, with the path of the offending field); a span with bad ids
 * or timestamps is rejected on its own.
 */
import type { Attributes, DecodedSpan, InstrumentationScope, SpanEvent, SpanLink, StatusCode } from "@crux/core";
import {
  AttrBag,
  type DecodeContext,
  REASON_END_BEFORE_START,
  REASON_TIME_OUT_OF_RANGE,
  endBeforeStart,
  isAllZeroHex,
  limitText,
  normalizeHexId,
  timeOutOfRange,
} from "./common.ts";
import {
  JsonShapeError,
  JsonValueDecoder,
  describe,
  enumValue,
  field,
  isJsonObject,
  list,
  optionalObject,
  str,
  uint32,
  uint64,
  type JsonObject,
} from "./json-values.ts";

const SPAN_KIND_NAMES: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODE_NAMES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

/** Parses an already-decoded JSON value; throws JsonShapeError (message includes the field path). */
export function decodeJsonRequest(root: unknown, ctx: DecodeContext): DecodedSpan[] {
  if (!isJsonObject(root)) {
    throw new JsonShapeError(`the body must be a JSON object (ExportTraceServiceRequest), got ${describe(root)}`);
  }
  return new JsonSpanDecoder(ctx).request(root);
}

/**
 * `{}` is the empty export (proto3 JSON leaves out empty fields) and stays
 * legal. An object with keys but none of them resourceSpans is some other
 * JSON posted to the OTLP endpoint: OTLP says unknown fields are ignored,
 * which would answer 200 and store nothing, so the sender never learns of its
 * mistake. No OTLP encoder produces such a body; refuse it and show the shape.
 */
function noResourceSpans(root: JsonObject): void {
  const keys = Object.keys(root);
  if (keys.length === 0) return;
  const shown = keys
    .slice(0, 5)
    .map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k))
    .join(", ");
  throw new JsonShapeError(
    `no "resourceSpans" field (got ${shown}${keys.length > 5 ? ", …" : ""}), so this is not a trace export; one looks like ` +
      `{"resourceSpans":[{"resource":{"attributes":[...]},"scopeSpans":[{"scope":{"name":"..."},"spans":[{"traceId":"<32 hex>","spanId":"<16 hex>","name":"...","startTimeUnixNano":"<ns>","endTimeUnixNano":"<ns>"}]}]}]}`,
  );
}

/** Adds the enclosing path segment to a JsonShapeError on its way up. */
function at(segment: string, err: unknown): never {
  if (err instanceof JsonShapeError) err.path = err.path === "" ? segment : `${segment}.${err.path}`;
  throw err;
}

class JsonSpanDecoder {
  private readonly spans: DecodedSpan[] = [];
  private readonly values: JsonValueDecoder;

  constructor(private readonly ctx: DecodeContext) {
    this.values = new JsonValueDecoder(ctx);
  }

  request(root: JsonObject): DecodedSpan[] {
    const resourceSpansJson = field(root, "resourceSpans", "resource_spans");
    if (resourceSpansJson === undefined) noResourceSpans(root);
    const resourceSpans = list(resourceSpansJson, "resourceSpans");
    for (let i = 0; i < resourceSpans.length; i++) {
      try {
        this.resourceSpans(resourceSpans[i]);
      } catch (err) {
        at(`resourceSpans[${i}]`, err);
      }
    }
    return this.spans;
  }

  private resourceSpans(rs: unknown): void {
    if (rs === null) return;
    if (!isJsonObject(rs)) throw new JsonShapeError(`must be an object, got ${describe(rs)}`);
    const first = this.spans.length;
    const resource = optionalObject(rs.resource, "resource");
    const bag = new AttrBag(this.ctx.limits.maxAttributesPerSpan);
    const truncated: string[] = [];
    if (resource) this.values.attributes(resource.attributes, bag, truncated, "resource.");
    const scopeSpans = list(field(rs, "scopeSpans", "scope_spans"), "scopeSpans");
    for (let j = 0; j < scopeSpans.length; j++) {
      try {
        this.scopeSpans(scopeSpans[j], bag.values);
      } catch (err) {
        at(`scopeSpans[${j}]`, err);
      }
    }
    if (truncated.length === 0) return;
    for (let i = first; i < this.spans.length; i++) this.spans[i]!.limitsApplied.truncatedKeys.push(...truncated);
  }

  private scopeSpans(ss: unknown, resource: Attributes): void {
    if (ss === null) return;
    if (!isJsonObject(ss)) throw new JsonShapeError(`must be an object, got ${describe(ss)}`);
    const scopeJson = optionalObject(ss.scope, "scope");
    const scopeBag = new AttrBag(this.ctx.limits.maxAttributesPerSpan);
    const truncated: string[] = [];
    let scope: InstrumentationScope = { name: "", version: "", attributes: scopeBag.values };
    if (scopeJson) {
      this.values.attributes(scopeJson.attributes, scopeBag, truncated, "scope.");
      scope = {
        name: str(scopeJson.name, "scope.name"),
        version: str(scopeJson.version, "scope.version"),
        attributes: scopeBag.values,
      };
    }
    const spans = list(ss.spans, "spans");
    const first = this.spans.length;
    for (let k = 0; k < spans.length; k++) {
      try {
        this.span(spans[k], resource, scope);
      } catch (err) {
        at(`spans[${k}]`, err);
      }
    }
    if (truncated.length === 0) return;
    for (let i = first; i < this.spans.length; i++) this.spans[i]!.limitsApplied.truncatedKeys.push(...truncated);
  }

  private span(s: unknown, resource: Attributes, scope: InstrumentationScope): void {
    if (s === null) return;
    if (!isJsonObject(s)) throw new JsonShapeError(`must be an object, got ${describe(s)}`);
    const limits = this.ctx.limits;
    // Ids and timestamps first: a rejected span is not converted further.
    const traceIdJson = field(s, "traceId", "trace_id");
    const spanIdJson = field(s, "spanId", "span_id");
    const parentJson = field(s, "parentSpanId", "parent_span_id");
    const traceId = typeof traceIdJson === "string" ? normalizeHexId(traceIdJson, 32) : null;
    const spanId = typeof spanIdJson === "string" ? normalizeHexId(spanIdJson, 16) : null;
    const startTime = uint64(field(s, "startTimeUnixNano", "start_time_unix_nano"), "startTimeUnixNano");
    const endTime = uint64(field(s, "endTimeUnixNano", "end_time_unix_nano"), "endTimeUnixNano");
    const ctx = this.ctx;
    if (traceId === null) return ctx.reject("invalid_trace_id", "invalid trace_id (must be 16 bytes as 32 hex characters)");
    if (isAllZeroHex(traceId)) return ctx.reject("invalid_trace_id", "invalid trace_id (all zero)");
    if (spanId === null) return ctx.reject("invalid_span_id", "invalid span_id (must be 8 bytes as 16 hex characters)");
    if (isAllZeroHex(spanId)) return ctx.reject("invalid_span_id", "invalid span_id (all zero)");
    let parentSpanId: string | null = null;
    if (parentJson !== undefined && parentJson !== null && parentJson !== "") {
      parentSpanId = typeof parentJson === "string" ? normalizeHexId(parentJson, 16) : null;
      if (parentSpanId === null) {
        return ctx.reject("invalid_parent_span_id", "invalid parent_span_id (must be empty or 8 bytes as 16 hex characters)");
      }
      if (isAllZeroHex(parentSpanId)) parentSpanId = null; // some SDKs send zeros for "no parent"
    }
    if (timeOutOfRange(startTime, endTime)) return ctx.reject("time_out_of_range", REASON_TIME_OUT_OF_RANGE);
    if (endBeforeStart(startTime, endTime, limits.maxEndBeforeStartNs)) return ctx.reject("end_before_start", REASON_END_BEFORE_START);

    const truncatedKeys: string[] = [];
    const attrs = new AttrBag(limits.maxAttributesPerSpan);
    this.values.attributes(s.attributes, attrs, truncatedKeys, "");

    const eventsJson = list(s.events, "events");
    const events: SpanEvent[] = [];
    let droppedEventsCount = uint32(field(s, "droppedEventsCount", "dropped_events_count"), "droppedEventsCount");
    for (let i = 0; i < eventsJson.length; i++) {
      if (eventsJson[i] === null) continue;
      if (events.length >= limits.maxEventsPerSpan) {
        droppedEventsCount++;
        continue;
      }
      try {
        events.push(this.event(eventsJson[i], events.length, truncatedKeys));
      } catch (err) {
        at(`events[${i}]`, err);
      }
    }

    const linksJson = list(s.links, "links");
    const links: SpanLink[] = [];
    let droppedLinksCount = uint32(field(s, "droppedLinksCount", "dropped_links_count"), "droppedLinksCount");
    for (let i = 0; i < linksJson.length; i++) {
      if (linksJson[i] === null) continue;
      let link: SpanLink | null = null;
      if (links.length < limits.maxLinksPerSpan) {
        try {
          link = this.link(linksJson[i], links.length, truncatedKeys);
        } catch (err) {
          at(`links[${i}]`, err);
        }
      }
      if (link) links.push(link);
      else droppedLinksCount++;
    }

    const status = optionalObject(s.status, "status");
    const code = status ? enumValue(status.code, STATUS_CODE_NAMES, "status.code") : 0;

    this.spans.push({
      traceId,
      spanId,
      parentSpanId,
      traceState: str(field(s, "traceState", "trace_state"), "traceState"),
      flags: uint32(s.flags, "flags"),
      name: limitText(str(s.name, "name"), limits.maxAttributeValueLength, truncatedKeys, "name"),
      kind: enumValue(s.kind, SPAN_KIND_NAMES, "kind"),
      startTimeUnixNano: startTime,
      endTimeUnixNano: endTime,
      attributes: attrs.values,
      droppedAttributesCount: uint32(field(s, "droppedAttributesCount", "dropped_attributes_count"), "droppedAttributesCount"),
      events,
      droppedEventsCount,
      links,
      droppedLinksCount,
      status: {
        code: (code === 1 || code === 2 ? code : 0) as StatusCode,
        message: status ? limitText(str(status.message, "status.message"), limits.maxAttributeValueLength, truncatedKeys, "status.message") : "",
      },
      resource,
      scope,
      limitsApplied: { truncatedKeys, droppedAttributes: attrs.dropped },
    });
  }

  private event(e: unknown, index: number, truncatedKeys: string[]): SpanEvent {
    if (!isJsonObject(e)) throw new JsonShapeError(`must be an object, got ${describe(e)}`);
    const bag = new AttrBag(this.ctx.limits.maxAttributesPerSpan);
    this.values.attributes(e.attributes, bag, truncatedKeys, `event[${index}].`);
    const dropped = uint32(field(e, "droppedAttributesCount", "dropped_attributes_count"), "droppedAttributesCount");
    return {
      timeUnixNano: uint64(field(e, "timeUnixNano", "time_unix_nano"), "timeUnixNano"),
      name: limitText(str(e.name, "name"), this.ctx.limits.maxAttributeValueLength, truncatedKeys, `event[${index}].name`),
      attributes: bag.values,
      droppedAttributesCount: dropped + bag.dropped,
    };
  }

  /** A link, or null when its ids are invalid (the link is dropped, not the span). */
  private link(l: unknown, index: number, truncatedKeys: string[]): SpanLink | null {
    if (!isJsonObject(l)) throw new JsonShapeError(`must be an object, got ${describe(l)}`);
    const traceIdJson = field(l, "traceId", "trace_id");
    const spanIdJson = field(l, "spanId", "span_id");
    const traceId = typeof traceIdJson === "string" ? normalizeHexId(traceIdJson, 32) : null;
    const spanId = typeof spanIdJson === "string" ? normalizeHexId(spanIdJson, 16) : null;
    if (traceId === null || spanId === null || isAllZeroHex(traceId) || isAllZeroHex(spanId)) return null;
    const bag = new AttrBag(this.ctx.limits.maxAttributesPerSpan);
    this.values.attributes(l.attributes, bag, truncatedKeys, `link[${index}].`);
    return {
      traceId,
      spanId,
      traceState: str(field(l, "traceState", "trace_state"), "traceState"),
      attributes: bag.values,
      flags: uint32(l.flags, "flags"),
    };
  }
}
