/**
 * ExportTraceServiceRequest (binary protobuf) → DecodedSpan[] in one pass over
 * the wire bytes with protobufjs's Reader; the tags come from the .proto files
 * (schema.ts). Malformed framing throws WireError (the caller maps it to
 * PermanentError); a span with bad ids or timestamps is rejected on its own.
 */
import type { Attributes, DecodedSpan, InstrumentationScope, SpanEvent, SpanLink, StatusCode } from "@crux/core";
import {
  AttrBag,
  type DecodeContext,
  REASON_END_BEFORE_START,
  REASON_TIME_OUT_OF_RANGE,
  allZeroBytes,
  endBeforeStart,
  timeOutOfRange,
  uint64BigInt,
} from "./common.ts";
import { decodeEvent, decodeLink } from "./protobuf-parts.ts";
import { ProtoValueDecoder } from "./protobuf-values.ts";
import { REQUEST_TAG, RESOURCE_SPANS_TAG, RESOURCE_TAG, SCOPE_SPANS_TAG, SCOPE_TAG, SPAN_TAG, STATUS_TAG, dispatchCode, tagDispatch } from "./schema.ts";
import { WireError, createWireReader, expectEnd, hex, lengthDelimited, readTag, skipField, utf8, type WireReader } from "./wire.ts";

// Dispatch codes of Span fields (not field numbers; see tagDispatch).
const enum SpanField {
  Unknown,
  TraceId,
  SpanId,
  TraceState,
  ParentSpanId,
  Name,
  Kind,
  StartTimeUnixNano,
  EndTimeUnixNano,
  Attributes,
  DroppedAttributesCount,
  Events,
  DroppedEventsCount,
  Links,
  DroppedLinksCount,
  Status,
  Flags,
}
const SPAN_FIELD = tagDispatch([
  [SPAN_TAG.traceId, SpanField.TraceId],
  [SPAN_TAG.spanId, SpanField.SpanId],
  [SPAN_TAG.traceState, SpanField.TraceState],
  [SPAN_TAG.parentSpanId, SpanField.ParentSpanId],
  [SPAN_TAG.name, SpanField.Name],
  [SPAN_TAG.kind, SpanField.Kind],
  [SPAN_TAG.startTimeUnixNano, SpanField.StartTimeUnixNano],
  [SPAN_TAG.endTimeUnixNano, SpanField.EndTimeUnixNano],
  [SPAN_TAG.attributes, SpanField.Attributes],
  [SPAN_TAG.droppedAttributesCount, SpanField.DroppedAttributesCount],
  [SPAN_TAG.events, SpanField.Events],
  [SPAN_TAG.droppedEventsCount, SpanField.DroppedEventsCount],
  [SPAN_TAG.links, SpanField.Links],
  [SPAN_TAG.droppedLinksCount, SpanField.DroppedLinksCount],
  [SPAN_TAG.status, SpanField.Status],
  [SPAN_TAG.flags, SpanField.Flags],
]);

// Placeholders until the enclosing ResourceSpans/ScopeSpans message is fully read.
const PENDING_RESOURCE: Attributes = Object.freeze({}) as Attributes;
const PENDING_SCOPE: InstrumentationScope = Object.freeze({ name: "", version: "", attributes: PENDING_RESOURCE });

export function decodeProtobufRequest(body: Uint8Array, ctx: DecodeContext): DecodedSpan[] {
  const dec = new ProtoSpanDecoder(createWireReader(body), ctx);
  try {
    return dec.request();
  } catch (err) {
    // protobufjs's Reader reports a read past the end of the body as RangeError.
    if (err instanceof RangeError) throw new WireError(`truncated body (${err.message})`);
    throw err;
  }
}

class ProtoSpanDecoder {
  private readonly spans: DecodedSpan[] = [];
  private readonly values: ProtoValueDecoder;

  constructor(
    private readonly r: WireReader,
    private readonly ctx: DecodeContext,
  ) {
    this.values = new ProtoValueDecoder(r, ctx);
  }

  request(): DecodedSpan[] {
    const r = this.r;
    const end = r.len;
    while (r.pos < end) {
      const tag = readTag(r);
      if (tag === REQUEST_TAG.resourceSpans) {
        const rsEnd = lengthDelimited(r, end);
        this.resourceSpans(rsEnd);
        r.pos = rsEnd;
      } else {
        skipField(r, tag & 7, end);
      }
    }
    expectEnd(r, end);
    return this.spans;
  }

  private resourceSpans(end: number): void {
    const r = this.r;
    const first = this.spans.length;
    let resource: AttrBag | null = null;
    const truncated: string[] = [];
    while (r.pos < end) {
      const tag = readTag(r);
      if (tag === RESOURCE_SPANS_TAG.resource) {
        const resEnd = lengthDelimited(r, end);
        resource ??= new AttrBag(this.ctx.limits.maxAttributesPerSpan);
        this.attributesOnly(resEnd, resource, truncated, "resource.");
        r.pos = resEnd;
      } else if (tag === RESOURCE_SPANS_TAG.scopeSpans) {
        const ssEnd = lengthDelimited(r, end);
        this.scopeSpans(ssEnd);
        r.pos = ssEnd;
      } else {
        skipField(r, tag & 7, end);
      }
    }
    expectEnd(r, end);
    // Fields may come in any order, so the resource is attached once the message is read.
    const attrs: Attributes = resource ? resource.values : {};
    for (let i = first; i < this.spans.length; i++) {
      const span = this.spans[i]!;
      span.resource = attrs;
      for (const key of truncated) span.limitsApplied.truncatedKeys.push(key);
    }
  }

  /** A Resource body: only its attributes are kept. */
  private attributesOnly(end: number, bag: AttrBag, truncated: string[], prefix: string): void {
    const r = this.r;
    while (r.pos < end) {
      const tag = readTag(r);
      if (tag === RESOURCE_TAG.attributes) {
        const kvEnd = lengthDelimited(r, end);
        this.values.keyValue(kvEnd, bag, truncated, prefix);
        r.pos = kvEnd;
      } else {
        skipField(r, tag & 7, end);
      }
    }
    expectEnd(r, end);
  }

  private scopeSpans(end: number): void {
    const r = this.r;
    const first = this.spans.length;
    let scope: InstrumentationScope | null = null;
    const truncated: string[] = [];
    while (r.pos < end) {
      const tag = readTag(r);
      if (tag === SCOPE_SPANS_TAG.scope) {
        const scopeEnd = lengthDelimited(r, end);
        scope = this.scope(scopeEnd, truncated);
        r.pos = scopeEnd;
      } else if (tag === SCOPE_SPANS_TAG.spans) {
        const spanEnd = lengthDelimited(r, end);
        this.span(spanEnd);
        r.pos = spanEnd;
      } else {
        skipField(r, tag & 7, end);
      }
    }
    expectEnd(r, end);
    const shared = scope ?? { name: "", version: "", attributes: {} };
    for (let i = first; i < this.spans.length; i++) {
      const span = this.spans[i]!;
      span.scope = shared;
      for (const key of truncated) span.limitsApplied.truncatedKeys.push(key);
    }
  }

  private scope(end: number, truncated: string[]): InstrumentationScope {
    const r = this.r;
    let name = "";
    let version = "";
    const bag = new AttrBag(this.ctx.limits.maxAttributesPerSpan);
    while (r.pos < end) {
      const tag = readTag(r);
      if (tag === SCOPE_TAG.name || tag === SCOPE_TAG.version) {
        const strEnd = lengthDelimited(r, end);
        const s = utf8(r, r.pos, strEnd);
        if (tag === SCOPE_TAG.name) name = s;
        else version = s;
        r.pos = strEnd;
      } else if (tag === SCOPE_TAG.attributes) {
        const kvEnd = lengthDelimited(r, end);
        this.values.keyValue(kvEnd, bag, truncated, "scope.");
        r.pos = kvEnd;
      } else {
        skipField(r, tag & 7, end);
      }
    }
    expectEnd(r, end);
    return { name, version, attributes: bag.values };
  }

  private span(end: number): void {
    const r = this.r;
    const limits = this.ctx.limits;
    let traceStart = 0;
    let traceEnd = -1;
    let spanStart = 0;
    let spanEnd = -1;
    let parentStart = 0;
    let parentEnd = 0;
    let traceState = "";
    let flags = 0;
    let name = "";
    let kind = 0;
    let startTime = 0n;
    let endTime = 0n;
    const attrs = new AttrBag(limits.maxAttributesPerSpan);
    const truncatedKeys: string[] = [];
    let droppedAttributesCount = 0;
    const events: SpanEvent[] = [];
    let droppedEventsCount = 0;
    const links: SpanLink[] = [];
    let droppedLinksCount = 0;
    let statusCode: StatusCode = 0;
    let statusMessage = "";

    while (r.pos < end) {
      const tag = readTag(r);
      switch (dispatchCode(SPAN_FIELD, tag)) {
        case SpanField.TraceId:
          traceEnd = lengthDelimited(r, end);
          traceStart = r.pos;
          r.pos = traceEnd;
          break;
        case SpanField.SpanId:
          spanEnd = lengthDelimited(r, end);
          spanStart = r.pos;
          r.pos = spanEnd;
          break;
        case SpanField.TraceState: {
          const e = lengthDelimited(r, end);
          traceState = utf8(r, r.pos, e);
          r.pos = e;
          break;
        }
        case SpanField.ParentSpanId:
          parentEnd = lengthDelimited(r, end);
          parentStart = r.pos;
          r.pos = parentEnd;
          break;
        case SpanField.Name: {
          const e = lengthDelimited(r, end);
          name = this.values.limitedText(r.pos, e, truncatedKeys, "name");
          r.pos = e;
          break;
        }
        case SpanField.Kind:
          kind = r.uint32() | 0;
          break;
        case SpanField.StartTimeUnixNano: {
          const lo = r.fixed32();
          startTime = uint64BigInt(lo, r.fixed32());
          break;
        }
        case SpanField.EndTimeUnixNano: {
          const lo = r.fixed32();
          endTime = uint64BigInt(lo, r.fixed32());
          break;
        }
        case SpanField.Attributes: {
          const e = lengthDelimited(r, end);
          this.values.keyValue(e, attrs, truncatedKeys, "");
          r.pos = e;
          break;
        }
        case SpanField.DroppedAttributesCount:
          droppedAttributesCount = r.uint32();
          break;
        case SpanField.Events: {
          const e = lengthDelimited(r, end);
          if (events.length < limits.maxEventsPerSpan) events.push(decodeEvent(r, this.values, limits, e, events.length, truncatedKeys));
          else droppedEventsCount++;
          r.pos = e;
          break;
        }
        case SpanField.DroppedEventsCount:
          droppedEventsCount += r.uint32();
          break;
        case SpanField.Links: {
          const e = lengthDelimited(r, end);
          const link = links.length < limits.maxLinksPerSpan ? decodeLink(r, this.values, limits, e, links.length, truncatedKeys) : null;
          if (link) links.push(link);
          else droppedLinksCount++;
          r.pos = e;
          break;
        }
        case SpanField.DroppedLinksCount:
          droppedLinksCount += r.uint32();
          break;
        case SpanField.Status: {
          const e = lengthDelimited(r, end);
          while (r.pos < e) {
            const statusTag = readTag(r);
            if (statusTag === STATUS_TAG.message) {
              const m = lengthDelimited(r, e);
              statusMessage = this.values.limitedText(r.pos, m, truncatedKeys, "status.message");
              r.pos = m;
            } else if (statusTag === STATUS_TAG.code) {
              const code = r.uint32();
              statusCode = code === 1 || code === 2 ? code : 0;
            } else {
              skipField(r, statusTag & 7, e);
            }
          }
          expectEnd(r, e);
          break;
        }
        case SpanField.Flags:
          flags = r.fixed32();
          break;
        default:
          skipField(r, tag & 7, end);
      }
    }
    expectEnd(r, end);

    const buf = r.buf;
    const traceLen = traceEnd - traceStart;
    const spanLen = spanEnd - spanStart;
    const parentLen = parentEnd - parentStart;
    const ctx = this.ctx;
    if (traceLen !== 16) return ctx.reject("invalid_trace_id", "invalid trace_id (must be 16 bytes)");
    if (allZeroBytes(buf, traceStart, traceEnd)) return ctx.reject("invalid_trace_id", "invalid trace_id (all zero)");
    if (spanLen !== 8) return ctx.reject("invalid_span_id", "invalid span_id (must be 8 bytes)");
    if (allZeroBytes(buf, spanStart, spanEnd)) return ctx.reject("invalid_span_id", "invalid span_id (all zero)");
    if (parentLen !== 0 && parentLen !== 8) return ctx.reject("invalid_parent_span_id", "invalid parent_span_id (must be empty or 8 bytes)");
    if (timeOutOfRange(startTime, endTime)) return ctx.reject("time_out_of_range", REASON_TIME_OUT_OF_RANGE);
    if (endBeforeStart(startTime, endTime, limits.maxEndBeforeStartNs)) return ctx.reject("end_before_start", REASON_END_BEFORE_START);

    this.spans.push({
      traceId: hex(r, traceStart, traceEnd),
      spanId: hex(r, spanStart, spanEnd),
      // An all-zero parent id is what some SDKs send for "no parent".
      parentSpanId: parentLen === 0 || allZeroBytes(buf, parentStart, parentEnd) ? null : hex(r, parentStart, parentEnd),
      traceState,
      flags,
      name,
      kind,
      startTimeUnixNano: startTime,
      endTimeUnixNano: endTime,
      attributes: attrs.values,
      droppedAttributesCount,
      events,
      droppedEventsCount,
      links,
      droppedLinksCount,
      status: { code: statusCode, message: statusMessage },
      resource: PENDING_RESOURCE,
      scope: PENDING_SCOPE,
      limitsApplied: { truncatedKeys, droppedAttributes: attrs.dropped },
    });
  }
}
