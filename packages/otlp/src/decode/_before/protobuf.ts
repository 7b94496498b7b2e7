/**
 * ExportTraceServiceRequest (binary protobuf) → DecodedSpan[] in one pass over
 * the wire bytes (field numbers: conventions.md §1.3). Malformed framing
 * throws WireError (the caller maps it to PermanentError); a span with bad ids
 * or timestamps is rejected on its own.
 */
import type { Attributes, DecodedSpan, InstrumentationScope, SpanEvent, SpanLink, StatusCode } from "@crux/core";
import {
  AttrBag,
  DecodeContext,
  REASON_END_BEFORE_START,
  allZeroBytes,
  endBeforeStart,
  uint64BigInt,
} from "./common.ts";
import { ProtoValueDecoder } from "./protobuf-values.ts";
import { WireReader } from "./wire.ts";

// Placeholders until the enclosing ResourceSpans/ScopeSpans message is fully read.
const PENDING_RESOURCE: Attributes = Object.freeze({}) as Attributes;
const PENDING_SCOPE: InstrumentationScope = Object.freeze({ name: "", version: "", attributes: PENDING_RESOURCE });

export function decodeProtobufRequest(body: Uint8Array, ctx: DecodeContext): DecodedSpan[] {
  const dec = new ProtoSpanDecoder(new WireReader(body), ctx);
  return dec.request();
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
    const end = r.length;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === 0x0a) {
        const rsEnd = r.lengthDelimited(end);
        this.resourceSpans(rsEnd);
        r.pos = rsEnd;
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
    return this.spans;
  }

  private resourceSpans(end: number): void {
    const r = this.r;
    const first = this.spans.length;
    let resource: AttrBag | null = null;
    const truncated: string[] = [];
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === 0x0a) {
        const resEnd = r.lengthDelimited(end);
        resource ??= new AttrBag(this.ctx.limits.maxAttributesPerSpan);
        this.attributesOnly(resEnd, resource, truncated, "resource.");
        r.pos = resEnd;
      } else if (tag === 0x12) {
        const ssEnd = r.lengthDelimited(end);
        this.scopeSpans(ssEnd);
        r.pos = ssEnd;
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
    // Fields may come in any order, so the resource is attached once the message is read.
    const attrs: Attributes = resource ? resource.values : {};
    for (let i = first; i < this.spans.length; i++) {
      const span = this.spans[i]!;
      span.resource = attrs;
      for (const key of truncated) span.limitsApplied.truncatedKeys.push(key);
    }
  }

  /** A Resource body: only its attributes (field 1) are kept. */
  private attributesOnly(end: number, bag: AttrBag, truncated: string[], prefix: string): void {
    const r = this.r;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === 0x0a) {
        const kvEnd = r.lengthDelimited(end);
        this.values.keyValue(kvEnd, bag, truncated, prefix);
        r.pos = kvEnd;
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
  }

  private scopeSpans(end: number): void {
    const r = this.r;
    const first = this.spans.length;
    let scope: InstrumentationScope | null = null;
    const truncated: string[] = [];
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === 0x0a) {
        const scopeEnd = r.lengthDelimited(end);
        scope = this.scope(scopeEnd, truncated);
        r.pos = scopeEnd;
      } else if (tag === 0x12) {
        const spanEnd = r.lengthDelimited(end);
        this.span(spanEnd);
        r.pos = spanEnd;
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
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
      const tag = r.tag();
      if (tag === 0x0a || tag === 0x12) {
        const strEnd = r.lengthDelimited(end);
        const s = r.utf8(r.pos, strEnd);
        if (tag === 0x0a) name = s;
        else version = s;
        r.pos = strEnd;
      } else if (tag === 0x1a) {
        const kvEnd = r.lengthDelimited(end);
        this.values.keyValue(kvEnd, bag, truncated, "scope.");
        r.pos = kvEnd;
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
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
      const tag = r.tag();
      switch (tag) {
        case 0x0a: // trace_id
          traceEnd = r.lengthDelimited(end);
          traceStart = r.pos;
          r.pos = traceEnd;
          break;
        case 0x12: // span_id
          spanEnd = r.lengthDelimited(end);
          spanStart = r.pos;
          r.pos = spanEnd;
          break;
        case 0x1a: {
          const e = r.lengthDelimited(end);
          traceState = r.utf8(r.pos, e);
          r.pos = e;
          break;
        }
        case 0x22: // parent_span_id
          parentEnd = r.lengthDelimited(end);
          parentStart = r.pos;
          r.pos = parentEnd;
          break;
        case 0x2a: {
          const e = r.lengthDelimited(end);
          name = r.utf8(r.pos, e);
          r.pos = e;
          break;
        }
        case 0x30:
          kind = r.uint32() | 0;
          break;
        case 0x39:
          r.fixed64();
          startTime = uint64BigInt(r.lo, r.hi);
          break;
        case 0x41:
          r.fixed64();
          endTime = uint64BigInt(r.lo, r.hi);
          break;
        case 0x4a: {
          const e = r.lengthDelimited(end);
          this.values.keyValue(e, attrs, truncatedKeys, "");
          r.pos = e;
          break;
        }
        case 0x50:
          droppedAttributesCount = r.uint32();
          break;
        case 0x5a: {
          const e = r.lengthDelimited(end);
          if (events.length < limits.maxEventsPerSpan) events.push(this.event(e, events.length, truncatedKeys));
          else droppedEventsCount++;
          r.pos = e;
          break;
        }
        case 0x60:
          droppedEventsCount += r.uint32();
          break;
        case 0x6a: {
          const e = r.lengthDelimited(end);
          const link = links.length < limits.maxLinksPerSpan ? this.link(e, links.length, truncatedKeys) : null;
          if (link) links.push(link);
          else droppedLinksCount++;
          r.pos = e;
          break;
        }
        case 0x70:
          droppedLinksCount += r.uint32();
          break;
        case 0x7a: {
          const e = r.lengthDelimited(end);
          while (r.pos < e) {
            const statusTag = r.tag();
            if (statusTag === 0x12) {
              const m = r.lengthDelimited(e);
              statusMessage = r.utf8(r.pos, m);
              r.pos = m;
            } else if (statusTag === 0x18) {
              const code = r.uint32();
              statusCode = code === 1 || code === 2 ? code : 0;
            } else {
              r.skip(statusTag & 7, e);
            }
          }
          r.expectEnd(e);
          break;
        }
        case 0x85: // flags = 16, fixed32
          flags = r.fixed32();
          break;
        default:
          r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);

    const buf = r.buf;
    const traceLen = traceEnd - traceStart;
    const spanLen = spanEnd - spanStart;
    const parentLen = parentEnd - parentStart;
    if (traceLen !== 16) return this.ctx.reject("invalid trace_id (must be 16 bytes)");
    if (allZeroBytes(buf, traceStart, traceEnd)) return this.ctx.reject("invalid trace_id (all zero)");
    if (spanLen !== 8) return this.ctx.reject("invalid span_id (must be 8 bytes)");
    if (allZeroBytes(buf, spanStart, spanEnd)) return this.ctx.reject("invalid span_id (all zero)");
    if (parentLen !== 0 && parentLen !== 8) return this.ctx.reject("invalid parent_span_id (must be empty or 8 bytes)");
    if (endBeforeStart(startTime, endTime, limits.maxEndBeforeStartNs)) return this.ctx.reject(REASON_END_BEFORE_START);

    this.spans.push({
      traceId: r.hex(traceStart, traceEnd),
      spanId: r.hex(spanStart, spanEnd),
      // An all-zero parent id is what some SDKs send for "no parent".
      parentSpanId: parentLen === 0 || allZeroBytes(buf, parentStart, parentEnd) ? null : r.hex(parentStart, parentEnd),
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

  private event(end: number, index: number, truncatedKeys: string[]): SpanEvent {
    const r = this.r;
    let timeUnixNano = 0n;
    let name = "";
    let droppedAttributesCount = 0;
    const bag = new AttrBag(this.ctx.limits.maxAttributesPerSpan);
    const prefix = `event[${index}].`;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === 0x09) {
        r.fixed64();
        timeUnixNano = uint64BigInt(r.lo, r.hi);
      } else if (tag === 0x12) {
        const e = r.lengthDelimited(end);
        name = r.utf8(r.pos, e);
        r.pos = e;
      } else if (tag === 0x1a) {
        const e = r.lengthDelimited(end);
        this.values.keyValue(e, bag, truncatedKeys, prefix);
        r.pos = e;
      } else if (tag === 0x20) {
        droppedAttributesCount = r.uint32();
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
    return { timeUnixNano, name, attributes: bag.values, droppedAttributesCount: droppedAttributesCount + bag.dropped };
  }

  /** A link, or null when its ids are invalid (the link is dropped, not the span). */
  private link(end: number, index: number, truncatedKeys: string[]): SpanLink | null {
    const r = this.r;
    let traceStart = 0;
    let traceEnd = -1;
    let spanStart = 0;
    let spanEnd = -1;
    let traceState = "";
    let flags = 0;
    const bag = new AttrBag(this.ctx.limits.maxAttributesPerSpan);
    const prefix = `link[${index}].`;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === 0x0a) {
        traceEnd = r.lengthDelimited(end);
        traceStart = r.pos;
        r.pos = traceEnd;
      } else if (tag === 0x12) {
        spanEnd = r.lengthDelimited(end);
        spanStart = r.pos;
        r.pos = spanEnd;
      } else if (tag === 0x1a) {
        const e = r.lengthDelimited(end);
        traceState = r.utf8(r.pos, e);
        r.pos = e;
      } else if (tag === 0x22) {
        const e = r.lengthDelimited(end);
        this.values.keyValue(e, bag, truncatedKeys, prefix);
        r.pos = e;
      } else if (tag === 0x35) {
        flags = r.fixed32();
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
    const buf = r.buf;
    if (traceEnd - traceStart !== 16 || spanEnd - spanStart !== 8) return null;
    if (allZeroBytes(buf, traceStart, traceEnd) || allZeroBytes(buf, spanStart, spanEnd)) return null;
    return {
      traceId: r.hex(traceStart, traceEnd),
      spanId: r.hex(spanStart, spanEnd),
      traceState,
      attributes: bag.values,
      flags,
    };
  }
}
