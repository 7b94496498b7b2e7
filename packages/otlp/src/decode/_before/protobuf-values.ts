/**
 * Protobuf KeyValue / AnyValue → AttrValue (common.proto). Values nested
 * deeper than maxValueDepth are skipped by length, never recursed into.
 */
import type { AttrValue } from "@crux/core";
import { AttrBag, DecodeContext, int64Value, recordTruncated, setOwn, truncateUnits } from "./common.ts";
import type { WireReader } from "./wire.ts";

// Tags are (field number << 3) | wire type; a known field number with another
// wire type falls through to skip(), as protobuf parsers treat it as unknown.
const KV_KEY = 0x0a;
const KV_VALUE = 0x12;
const ANY_STRING = 0x0a;
const ANY_BOOL = 0x10;
const ANY_INT = 0x18;
const ANY_DOUBLE = 0x21;
const ANY_ARRAY = 0x2a;
const ANY_KVLIST = 0x32;
const ANY_BYTES = 0x3a;
const LIST_VALUES = 0x0a;

/** Decoder for attribute values of one request; `truncated` is set when a value was cut by a limit. */
export class ProtoValueDecoder {
  truncated = false;
  private readonly maxLen: number;
  private readonly maxDepth: number;

  constructor(
    private readonly r: WireReader,
    private readonly ctx: DecodeContext,
  ) {
    this.maxLen = ctx.limits.maxAttributeValueLength;
    this.maxDepth = ctx.limits.maxValueDepth;
  }

  /**
   * Reads one KeyValue message ending at `end` into `bag`, recording the key
   * (with `keyPrefix`) in `truncatedKeys` when a limit cut its value.
   */
  keyValue(end: number, bag: AttrBag, truncatedKeys: string[], keyPrefix: string): void {
    const r = this.r;
    let key = "";
    let valueStart = -1;
    let valueEnd = -1;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === KV_KEY) {
        const keyEnd = r.lengthDelimited(end);
        key = r.utf8(r.pos, keyEnd);
        r.pos = keyEnd;
      } else if (tag === KV_VALUE) {
        valueEnd = r.lengthDelimited(end);
        valueStart = r.pos;
        r.pos = valueEnd;
      } else {
        r.skip(tag & 7, end); // key_strindex (profiling only) is treated as absent
      }
    }
    r.expectEnd(end);
    if (!bag.admit(key)) return;
    let value: AttrValue = null;
    if (valueStart >= 0) {
      this.truncated = false;
      r.pos = valueStart;
      value = this.anyValue(valueEnd, 0);
      r.pos = end;
      if (this.truncated) recordTruncated(truncatedKeys, keyPrefix === "" ? key : keyPrefix + key);
    }
    bag.set(key, value);
  }

  /** One AnyValue message ending at `end`; `depth` is the number of enclosing arrays/kvlists. */
  anyValue(end: number, depth: number): AttrValue {
    const r = this.r;
    let value: AttrValue = null; // an AnyValue with no field set is "empty"
    while (r.pos < end) {
      const tag = r.tag();
      switch (tag) {
        case ANY_STRING: {
          const stringEnd = r.lengthDelimited(end);
          value = this.limitedString(r.pos, stringEnd);
          r.pos = stringEnd;
          break;
        }
        case ANY_BOOL:
          r.varint64();
          value = r.lo !== 0 || r.hi !== 0;
          break;
        case ANY_INT:
          r.varint64();
          value = int64Value(r.lo, r.hi);
          break;
        case ANY_DOUBLE:
          value = r.double();
          break;
        case ANY_ARRAY:
        case ANY_KVLIST: {
          const listEnd = r.lengthDelimited(end);
          if (depth + 1 > this.maxDepth) {
            value = this.ctx.depthMarker;
            this.truncated = true;
          } else {
            value = tag === ANY_ARRAY ? this.array(listEnd, depth + 1) : this.kvlist(listEnd, depth + 1);
          }
          r.pos = listEnd;
          break;
        }
        case ANY_BYTES: {
          const bytesEnd = r.lengthDelimited(end);
          value = this.limitedBase64(r.pos, bytesEnd);
          r.pos = bytesEnd;
          break;
        }
        default:
          r.skip(tag & 7, end); // includes string_value_strindex, treated as absent
      }
    }
    r.expectEnd(end);
    return value;
  }

  private array(end: number, depth: number): AttrValue[] {
    const r = this.r;
    const out: AttrValue[] = [];
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === LIST_VALUES) {
        const itemEnd = r.lengthDelimited(end);
        out.push(this.anyValue(itemEnd, depth));
        r.pos = itemEnd;
      } else {
        r.skip(tag & 7, end);
      }
    }
    r.expectEnd(end);
    return out;
  }

  private kvlist(end: number, depth: number): { [key: string]: AttrValue } {
    const r = this.r;
    const out: { [key: string]: AttrValue } = {};
    while (r.pos < end) {
      const tag = r.tag();
      if (tag !== LIST_VALUES) {
        r.skip(tag & 7, end);
        continue;
      }
      const kvEnd = r.lengthDelimited(end);
      let key = "";
      let value: AttrValue = null;
      while (r.pos < kvEnd) {
        const kvTag = r.tag();
        if (kvTag === KV_KEY) {
          const keyEnd = r.lengthDelimited(kvEnd);
          key = r.utf8(r.pos, keyEnd);
          r.pos = keyEnd;
        } else if (kvTag === KV_VALUE) {
          const valueEnd = r.lengthDelimited(kvEnd);
          value = this.anyValue(valueEnd, depth);
          r.pos = valueEnd;
        } else {
          r.skip(kvTag & 7, kvEnd);
        }
      }
      r.expectEnd(kvEnd);
      setOwn(out, key, value);
    }
    r.expectEnd(end);
    return out;
  }

  /**
   * UTF-8 string value cut to maxLen code units. A code unit takes at most 3
   * UTF-8 bytes (a 4-byte sequence yields 2 units, an invalid byte one U+FFFD),
   * so a string of more than 3*maxLen+3 bytes has its first maxLen units in
   * that prefix: only the prefix is decoded (unless removed U+0000 shrank it).
   */
  limitedString(start: number, end: number): string {
    const max = this.maxLen;
    const prefixBytes = 3 * max + 3;
    let s = this.r.utf8(start, end - start > prefixBytes ? start + prefixBytes : end);
    if (end - start > prefixBytes && s.length < max) s = this.r.utf8(start, end);
    if (s.length > max) {
      this.truncated = true;
      return truncateUnits(s, max);
    }
    return s;
  }

  /** Bytes as base64, cut so the base64 text stays within maxLen characters. */
  limitedBase64(start: number, end: number): string {
    const maxBytes = Math.floor(this.maxLen / 4) * 3;
    if (end - start > maxBytes) {
      this.truncated = true;
      return this.r.base64(start, start + maxBytes);
    }
    return this.r.base64(start, end);
  }
}
