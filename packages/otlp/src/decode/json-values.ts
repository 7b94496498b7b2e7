/**
 * OTLP/JSON scalars and AnyValue → AttrValue (docs/conventions.md §2.5): 64-bit
 * integers as decimal strings or numbers, enums as integers or names,
 * lowerCamelCase keys with snake_case accepted leniently. A value of the wrong
 * JSON type throws JsonShapeError, which becomes a 400 for the whole request.
 */
import type { AttrValue } from "@crux/core";
import { type AttrBag, type DecodeContext, cleanString, recordTruncated, setOwn, truncateUnits } from "./common.ts";

export class JsonShapeError extends Error {
  override readonly name = "JsonShapeError";
  /** Where in the request the bad value is, e.g. "resourceSpans[0].scopeSpans[1].spans[2]"; filled in on the way up. */
  path = "";
}

export type JsonObject = { [key: string]: unknown };

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A field by its lowerCamelCase name, else by its snake_case name (not valid OTLP/JSON, accepted anyway). */
export function field(o: JsonObject, camel: string, snake: string): unknown {
  const v = o[camel];
  return v === undefined ? o[snake] : v;
}

export function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return v.length > 40 ? `a string "${v.slice(0, 40)}…"` : `"${v}"`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}

/** A repeated field: absent or null is empty; anything but an array is a shape error. */
export function list(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return EMPTY_LIST;
  if (!Array.isArray(v)) throw new JsonShapeError(`${what} must be an array, got ${describe(v)}`);
  return v;
}
const EMPTY_LIST: unknown[] = [];

export function optionalObject(v: unknown, what: string): JsonObject | null {
  if (v === undefined || v === null) return null;
  if (!isJsonObject(v)) throw new JsonShapeError(`${what} must be an object, got ${describe(v)}`);
  return v;
}

export function str(v: unknown, what: string): string {
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new JsonShapeError(`${what} must be a string, got ${describe(v)}`);
  return cleanString(v);
}

function isDecimal(s: string): boolean {
  const start = s.charCodeAt(0) === 45 ? 1 : 0; // optional "-"
  if (s.length === start) return false;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const MAX_UINT64 = 0xffff_ffff_ffff_ffffn;

/** fixed64/uint64 (timestamps): decimal string or number. */
export function uint64(v: unknown, what: string): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === "string" && isDecimal(v) && v.charCodeAt(0) !== 45) {
    const n = BigInt(v);
    if (n <= MAX_UINT64) return n;
  } else if (typeof v === "number" && Number.isInteger(v) && v >= 0) {
    return BigInt(v);
  }
  throw new JsonShapeError(`${what} must be an unsigned 64-bit integer (decimal string or number), got ${describe(v)}`);
}

/** uint32/fixed32 fields (counts, flags): number or decimal string. */
export function uint32(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === "string" && isDecimal(v) ? Number(v) : v;
  if (typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff) return n;
  throw new JsonShapeError(`${what} must be an unsigned 32-bit integer, got ${describe(v)}`);
}

/** An enum: integer (the OTLP/JSON form), numeric string, or its value name (accepted leniently). */
export function enumValue(v: unknown, names: Record<string, number>, what: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string") {
    if (isDecimal(v)) return Number(v);
    const byName = names[v];
    if (byName !== undefined && Object.hasOwn(names, v)) return byName;
  }
  throw new JsonShapeError(`${what} must be an integer enum value, got ${describe(v)}`);
}

/** int64 AnyValue: a number when it is a safe integer, else its decimal string. */
function int64(v: unknown): number | string {
  if (typeof v === "number") {
    if (Number.isSafeInteger(v)) return v;
    if (Number.isInteger(v)) return BigInt(v).toString();
  } else if (typeof v === "string" && isDecimal(v)) {
    if (v.length <= 15) return Number(v);
    const n = BigInt(v);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
  }
  throw new JsonShapeError(`intValue must be an integer (decimal string or number), got ${describe(v)}`);
}

function double(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    if (v === "NaN") return NaN;
    if (v === "Infinity") return Infinity;
    if (v === "-Infinity") return -Infinity;
    const n = v.trim() === "" ? NaN : Number(v);
    if (!Number.isNaN(n)) return n;
  }
  throw new JsonShapeError(`doubleValue must be a number, "NaN", "Infinity" or "-Infinity", got ${describe(v)}`);
}

function bool(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false") return false;
  throw new JsonShapeError(`boolValue must be a boolean, got ${describe(v)}`);
}

/** AnyValue/KeyValue decoder for one request; `truncated` is set when a limit cut a value. */
export class JsonValueDecoder {
  truncated = false;
  private readonly maxLen: number;
  private readonly maxDepth: number;
  private readonly depthMarker: string;

  constructor(ctx: DecodeContext) {
    this.maxLen = ctx.limits.maxAttributeValueLength;
    this.maxDepth = ctx.limits.maxValueDepth;
    this.depthMarker = ctx.depthMarker;
  }

  /** A repeated KeyValue field into `bag`; truncated keys are recorded with `keyPrefix`. */
  attributes(v: unknown, bag: AttrBag, truncatedKeys: string[], keyPrefix: string): void {
    const kvs = list(v, "attributes");
    for (let i = 0; i < kvs.length; i++) {
      const kv = kvs[i];
      if (kv === null) continue;
      if (!isJsonObject(kv)) throw new JsonShapeError(`attributes[${i}] must be an object, got ${describe(kv)}`);
      const key = str(kv.key, `attributes[${i}].key`);
      if (!bag.admit(key)) continue;
      this.truncated = false;
      let value: AttrValue;
      try {
        value = this.anyValue(kv.value, 0);
      } catch (err) {
        if (err instanceof JsonShapeError) err.message = `attribute "${key}": ${err.message}`;
        throw err;
      }
      if (this.truncated) recordTruncated(truncatedKeys, keyPrefix === "" ? key : keyPrefix + key);
      bag.set(key, value);
    }
  }

  /** One AnyValue; `depth` is the number of enclosing arrays/kvlists. */
  anyValue(v: unknown, depth: number): AttrValue {
    if (v === undefined || v === null) return null;
    if (!isJsonObject(v)) throw new JsonShapeError(`value must be an AnyValue object, got ${describe(v)}`);
    let x: unknown;
    if ((x = field(v, "stringValue", "string_value")) !== undefined && x !== null) {
      if (typeof x !== "string") throw new JsonShapeError(`stringValue must be a string, got ${describe(x)}`);
      return this.limitedString(x);
    }
    if ((x = field(v, "intValue", "int_value")) !== undefined && x !== null) return int64(x);
    if ((x = field(v, "doubleValue", "double_value")) !== undefined && x !== null) return double(x);
    if ((x = field(v, "boolValue", "bool_value")) !== undefined && x !== null) return bool(x);
    if ((x = field(v, "arrayValue", "array_value")) !== undefined && x !== null) {
      if (depth + 1 > this.maxDepth) return this.cutNesting();
      const values = list(optionalObject(x, "arrayValue")?.values, "arrayValue.values");
      const out: AttrValue[] = new Array(values.length);
      for (let i = 0; i < values.length; i++) out[i] = this.anyValue(values[i], depth + 1);
      return out;
    }
    if ((x = field(v, "kvlistValue", "kvlist_value")) !== undefined && x !== null) {
      if (depth + 1 > this.maxDepth) return this.cutNesting();
      const values = list(optionalObject(x, "kvlistValue")?.values, "kvlistValue.values");
      const out: { [key: string]: AttrValue } = {};
      for (let i = 0; i < values.length; i++) {
        const kv = values[i];
        if (kv === null) continue;
        if (!isJsonObject(kv)) throw new JsonShapeError(`kvlistValue.values[${i}] must be an object, got ${describe(kv)}`);
        setOwn(out, str(kv.key, `kvlistValue.values[${i}].key`), this.anyValue(kv.value, depth + 1));
      }
      return out;
    }
    if ((x = field(v, "bytesValue", "bytes_value")) !== undefined && x !== null) {
      if (typeof x !== "string") throw new JsonShapeError(`bytesValue must be a base64 string, got ${describe(x)}`);
      return this.limitedBase64(cleanString(x));
    }
    return null; // empty AnyValue (or only the profiling-only stringValueStrindex)
  }

  private cutNesting(): string {
    this.truncated = true;
    return this.depthMarker;
  }

  private limitedString(s: string): string {
    s = cleanString(s);
    if (s.length <= this.maxLen) return s;
    this.truncated = true;
    return truncateUnits(s, this.maxLen);
  }

  /** Keeps whole 4-character base64 groups so the cut value stays valid base64. */
  private limitedBase64(s: string): string {
    if (s.length <= this.maxLen) return s;
    this.truncated = true;
    return s.slice(0, Math.floor(this.maxLen / 4) * 4);
  }
}
