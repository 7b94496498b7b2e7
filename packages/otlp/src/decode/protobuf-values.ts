/**
 * Protobuf KeyValue / AnyValue → AttrValue (common.proto). Values nested
 * deeper than maxValueDepth are skipped by length, never recursed into.
 */
import type { AttrValue } from "@crux/core";
import { type AttrBag, type DecodeContext, int64Value, recordTruncated, setOwn, truncateUnits } from "./common.ts";
import { ANY_VALUE_TAG, ARRAY_VALUE_TAG, KEY_VALUE_LIST_TAG, KEY_VALUE_TAG, dispatchCode, tagDispatch } from "./schema.ts";
import { base64, expectEnd, lengthDelimited, readTag, readVarint64, skipField, utf8, type WireReader } from "./wire.ts";

// Tags are (field number << 3) | wire type, from the .proto files; a known
// field number with another wire type falls through to skipField(), as
// protobuf parsers treat it as unknown.
const KV_KEY = KEY_VALUE_TAG.key;
const KV_VALUE = KEY_VALUE_TAG.value;
// Dispatch codes of AnyValue fields (not field numbers; see tagDispatch).
const enum AnyField {
  Unknown,
  String,
  Bool,
  Int,
  Double,
  Array,
  Kvlist,
  Bytes,
}
const ANY_FIELD = tagDispatch([
  [ANY_VALUE_TAG.stringValue, AnyField.String],
  [ANY_VALUE_TAG.boolValue, AnyField.Bool],
  [ANY_VALUE_TAG.intValue, AnyField.Int],
  [ANY_VALUE_TAG.doubleValue, AnyField.Double],
  [ANY_VALUE_TAG.arrayValue, AnyField.Array],
  [ANY_VALUE_TAG.kvlistValue, AnyField.Kvlist],
  [ANY_VALUE_TAG.bytesValue, AnyField.Bytes],
]);
const ARRAY_VALUES = ARRAY_VALUE_TAG.values;
const KVLIST_VALUES = KEY_VALUE_LIST_TAG.values;

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
      const tag = readTag(r);
      if (tag === KV_KEY) {
        const keyEnd = lengthDelimited(r, end);
        key = utf8(r, r.pos, keyEnd);
        r.pos = keyEnd;
      } else if (tag === KV_VALUE) {
        valueEnd = lengthDelimited(r, end);
        valueStart = r.pos;
        r.pos = valueEnd;
      } else {
        skipField(r, tag & 7, end); // key_strindex (profiling only) is treated as absent
      }
    }
    expectEnd(r, end);
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
      const tag = readTag(r);
      const code = dispatchCode(ANY_FIELD, tag);
      switch (code) {
        case AnyField.String: {
          const stringEnd = lengthDelimited(r, end);
          value = this.limitedString(r.pos, stringEnd);
          r.pos = stringEnd;
          break;
        }
        case AnyField.Bool:
          value = r.bool();
          break;
        case AnyField.Int:
          value = readVarint64(r, int64Value);
          break;
        case AnyField.Double:
          value = r.double();
          break;
        case AnyField.Array:
        case AnyField.Kvlist: {
          const listEnd = lengthDelimited(r, end);
          if (depth + 1 > this.maxDepth) {
            value = this.ctx.depthMarker;
            this.truncated = true;
          } else {
            value = code === AnyField.Array ? this.array(listEnd, depth + 1) : this.kvlist(listEnd, depth + 1);
          }
          r.pos = listEnd;
          break;
        }
        case AnyField.Bytes: {
          const bytesEnd = lengthDelimited(r, end);
          value = this.limitedBase64(r.pos, bytesEnd);
          r.pos = bytesEnd;
          break;
        }
        default:
          skipField(r, tag & 7, end); // includes string_value_strindex, treated as absent
      }
    }
    expectEnd(r, end);
    return value;
  }

  private array(end: number, depth: number): AttrValue[] {
    const r = this.r;
    const out: AttrValue[] = [];
    while (r.pos < end) {
      const tag = readTag(r);
      if (tag === ARRAY_VALUES) {
        const itemEnd = lengthDelimited(r, end);
        out.push(this.anyValue(itemEnd, depth));
        r.pos = itemEnd;
      } else {
        skipField(r, tag & 7, end);
      }
    }
    expectEnd(r, end);
    return out;
  }

  private kvlist(end: number, depth: number): { [key: string]: AttrValue } {
    const r = this.r;
    const out: { [key: string]: AttrValue } = {};
    while (r.pos < end) {
      const tag = readTag(r);
      if (tag !== KVLIST_VALUES) {
        skipField(r, tag & 7, end);
        continue;
      }
      const kvEnd = lengthDelimited(r, end);
      let key = "";
      let value: AttrValue = null;
      while (r.pos < kvEnd) {
        const kvTag = readTag(r);
        if (kvTag === KV_KEY) {
          const keyEnd = lengthDelimited(r, kvEnd);
          key = utf8(r, r.pos, keyEnd);
          r.pos = keyEnd;
        } else if (kvTag === KV_VALUE) {
          const valueEnd = lengthDelimited(r, kvEnd);
          value = this.anyValue(valueEnd, depth);
          r.pos = valueEnd;
        } else {
          skipField(r, kvTag & 7, kvEnd);
        }
      }
      expectEnd(r, kvEnd);
      setOwn(out, key, value);
    }
    expectEnd(r, end);
    return out;
  }

  /**
   * A string field that is not an attribute value (span/event name, status
   * message), cut to maxLen code units like one; `key` is recorded in
   * `truncatedKeys` when it was cut.
   */
  limitedText(start: number, end: number, truncatedKeys: string[], key: string): string {
    this.truncated = false;
    const s = this.limitedString(start, end);
    if (this.truncated) recordTruncated(truncatedKeys, key);
    return s;
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
    let s = utf8(this.r, start, end - start > prefixBytes ? start + prefixBytes : end);
    if (end - start > prefixBytes && s.length < max) s = utf8(this.r, start, end);
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
      return base64(this.r, start, start + maxBytes);
    }
    return base64(this.r, start, end);
  }
}
