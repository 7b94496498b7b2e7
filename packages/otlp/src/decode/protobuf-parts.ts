/**
 * Span.Event and Span.Link messages of the one-pass protobuf decoder
 * (protobuf.ts); tags come from the .proto files (schema.ts).
 */
import type { SpanEvent, SpanLink } from "@crux/core";
import { AttrBag, allZeroBytes, uint64BigInt } from "./common.ts";
import type { DecodeLimits } from "./limits.ts";
import type { ProtoValueDecoder } from "./protobuf-values.ts";
import { EVENT_TAG, LINK_TAG } from "./schema.ts";
import { expectEnd, hex, lengthDelimited, readTag, skipField, utf8, type WireReader } from "./wire.ts";

export function decodeEvent(r: WireReader, values: ProtoValueDecoder, limits: DecodeLimits, end: number, index: number, truncatedKeys: string[]): SpanEvent {
  let timeUnixNano = 0n;
  let name = "";
  let droppedAttributesCount = 0;
  const bag = new AttrBag(limits.maxAttributesPerSpan);
  const prefix = `event[${index}].`;
  while (r.pos < end) {
    const tag = readTag(r);
    if (tag === EVENT_TAG.timeUnixNano) {
      const lo = r.fixed32();
      timeUnixNano = uint64BigInt(lo, r.fixed32());
    } else if (tag === EVENT_TAG.name) {
      const e = lengthDelimited(r, end);
      name = values.limitedText(r.pos, e, truncatedKeys, `event[${index}].name`);
      r.pos = e;
    } else if (tag === EVENT_TAG.attributes) {
      const e = lengthDelimited(r, end);
      values.keyValue(e, bag, truncatedKeys, prefix);
      r.pos = e;
    } else if (tag === EVENT_TAG.droppedAttributesCount) {
      droppedAttributesCount = r.uint32();
    } else {
      skipField(r, tag & 7, end);
    }
  }
  expectEnd(r, end);
  return { timeUnixNano, name, attributes: bag.values, droppedAttributesCount: droppedAttributesCount + bag.dropped };
}

/** A link, or null when its ids are invalid (the link is dropped, not the span). */
export function decodeLink(
  r: WireReader,
  values: ProtoValueDecoder,
  limits: DecodeLimits,
  end: number,
  index: number,
  truncatedKeys: string[],
): SpanLink | null {
  let traceStart = 0;
  let traceEnd = -1;
  let spanStart = 0;
  let spanEnd = -1;
  let traceState = "";
  let flags = 0;
  const bag = new AttrBag(limits.maxAttributesPerSpan);
  const prefix = `link[${index}].`;
  while (r.pos < end) {
    const tag = readTag(r);
    if (tag === LINK_TAG.traceId) {
      traceEnd = lengthDelimited(r, end);
      traceStart = r.pos;
      r.pos = traceEnd;
    } else if (tag === LINK_TAG.spanId) {
      spanEnd = lengthDelimited(r, end);
      spanStart = r.pos;
      r.pos = spanEnd;
    } else if (tag === LINK_TAG.traceState) {
      const e = lengthDelimited(r, end);
      traceState = utf8(r, r.pos, e);
      r.pos = e;
    } else if (tag === LINK_TAG.attributes) {
      const e = lengthDelimited(r, end);
      values.keyValue(e, bag, truncatedKeys, prefix);
      r.pos = e;
    } else if (tag === LINK_TAG.flags) {
      flags = r.fixed32();
    } else {
      skipField(r, tag & 7, end);
    }
  }
  expectEnd(r, end);
  const buf = r.buf;
  if (traceEnd - traceStart !== 16 || spanEnd - spanStart !== 8) return null;
  if (allZeroBytes(buf, traceStart, traceEnd) || allZeroBytes(buf, spanStart, spanEnd)) return null;
  return {
    traceId: hex(r, traceStart, traceEnd),
    spanId: hex(r, spanStart, spanEnd),
    traceState,
    attributes: bag.values,
    flags,
  };
}
