/**
 * Pieces shared by the protobuf and JSON decoders: the per-request context
 * (limits, rejection tally), the attribute bag that enforces the per-span
 * attribute cap, and string/id helpers that keep output safe for Postgres
 * text/jsonb (no U+0000, no lone UTF-16 surrogates).
 */
import type { AttrValue, Attributes, DecodedSpan } from "@crux/core";
import { depthMarker, type DecodeLimits } from "./limits.ts";

export type OtlpFormat = "protobuf" | "json";

/** Why a span was rejected on its own, as a fixed code (metrics label) next to the text of the message. */
export type RejectCode = "invalid_trace_id" | "invalid_span_id" | "invalid_parent_span_id" | "time_out_of_range" | "end_before_start";

export interface DecodeResult {
  /** Valid spans. */
  spans: DecodedSpan[];
  /** Spans rejected individually (bad or missing ids, timestamps out of range, end before start beyond tolerance). */
  rejectedSpans: number;
  /** "" when no span was rejected; else a short English summary with counts per reason. */
  rejectionMessage: string;
  /** The rejected spans counted by reason code (empty when none was rejected). */
  rejectedByCode: Partial<Record<RejectCode, number>>;
}

/** Per-request state, threaded through the decoders. */
export class DecodeContext {
  readonly depthMarker: string;
  /** Reasons in first-seen order, with how many spans each rejected. */
  private readonly reasons = new Map<string, number>();
  private readonly codes: Partial<Record<RejectCode, number>> = {};
  private rejected = 0;

  constructor(readonly limits: DecodeLimits) {
    this.depthMarker = depthMarker(limits.maxValueDepth);
  }

  reject(code: RejectCode, reason: string): void {
    this.rejected++;
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    this.codes[code] = (this.codes[code] ?? 0) + 1;
  }

  result(spans: DecodedSpan[]): DecodeResult {
    if (this.rejected === 0) return { spans, rejectedSpans: 0, rejectionMessage: "", rejectedByCode: {} };
    const parts: string[] = [];
    for (const [reason, count] of this.reasons) parts.push(`${count} ${reason}`);
    const noun = this.rejected === 1 ? "span" : "spans";
    return {
      spans,
      rejectedSpans: this.rejected,
      rejectionMessage: `${this.rejected} ${noun} rejected: ${parts.join(", ")}`,
      rejectedByCode: this.codes,
    };
  }
}

/**
 * Attributes of one span/event/link/resource/scope. Keeps at most `max`
 * distinct keys; a repeated key overwrites (last value wins) and never counts
 * as dropped.
 */
export class AttrBag {
  readonly values: Attributes = {};
  private count = 0;
  dropped = 0;

  constructor(private readonly max: number) {}

  /** True when `key` may be written (already present, or room left); counts a drop otherwise. */
  admit(key: string): boolean {
    if (Object.hasOwn(this.values, key)) return true;
    if (this.count >= this.max) {
      this.dropped++;
      return false;
    }
    this.count++;
    return true;
  }

  set(key: string, value: AttrValue): void {
    setOwn(this.values, key, value);
  }
}

/** Assigns an own property, also for "__proto__" (a plain assignment would change the prototype instead). */
export function setOwn(target: { [key: string]: AttrValue }, key: string, value: AttrValue): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

export function recordTruncated(truncatedKeys: string[], key: string): void {
  if (!truncatedKeys.includes(key)) truncatedKeys.push(key);
}

/** `s` cut to `max` code units; `key` is recorded in `truncatedKeys` when it was cut. */
export function limitText(s: string, max: number, truncatedKeys: string[], key: string): string {
  if (s.length <= max) return s;
  recordTruncated(truncatedKeys, key);
  return truncateUnits(s, max);
}

interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** Removes U+0000 and replaces lone surrogates with U+FFFD (both are rejected by Postgres text/jsonb). */
export function cleanString(s: string): string {
  if (s.indexOf("\u0000") !== -1) s = s.replaceAll("\u0000", "");
  const w = s as unknown as WellFormedString;
  return w.isWellFormed() ? s : w.toWellFormed();
}

/** Cuts `s` to at most `max` UTF-16 code units without splitting a surrogate pair. */
export function truncateUnits(s: string, max: number): string {
  let cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

export function allZeroBytes(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== 0) return false;
  return true;
}

/**
 * An OTLP/JSON id (case-insensitive hex, docs/conventions.md §2.5) as lowercase hex,
 * or null when it is not exactly `hexLength` hex characters.
 */
export function normalizeHexId(value: string, hexLength: number): string | null {
  if (value.length !== hexLength) return null;
  let hasUpper = false;
  for (let i = 0; i < hexLength; i++) {
    const c = value.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) continue;
    if (c >= 65 && c <= 70) {
      hasUpper = true;
      continue;
    }
    return null;
  }
  return hasUpper ? value.toLowerCase() : value;
}

export function isAllZeroHex(hex: string): boolean {
  for (let i = 0; i < hex.length; i++) if (hex.charCodeAt(i) !== 48) return false;
  return true;
}

/**
 * A signed 64-bit integer given as two unsigned 32-bit halves: a number when
 * it is a safe integer, else its decimal string (AttrValue convention).
 */
export function int64Value(lo: number, hi: number): number | string {
  const signedHi = hi | 0;
  if (signedHi >= -0x200000 && signedHi < 0x200000) {
    const n = signedHi * 4294967296 + lo;
    if (Number.isSafeInteger(n)) return n;
  }
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** An unsigned 64-bit integer given as two unsigned 32-bit halves, as bigint with one conversion when it fits 53 bits. */
export function uint64BigInt(lo: number, hi: number): bigint {
  if (hi < 0x200000) return BigInt(hi * 4294967296 + lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** Why a span is rejected, checked after ids and timestamps are known. */
export function endBeforeStart(start: bigint, end: bigint, tolerance: bigint): boolean {
  return end < start && start - end > tolerance;
}

export const REASON_END_BEFORE_START = "end before start";

/**
 * Span start and end times are stored as signed 64-bit integers (Postgres
 * bigint): a fixed64 from 2^63 ns on (after the year 2262) is legal OTLP but
 * cannot be stored, and one such span must not fail the rest of its batch.
 */
const MAX_STORED_TIME_NS = 2n ** 63n - 1n;

export function timeOutOfRange(start: bigint, end: bigint): boolean {
  return start > MAX_STORED_TIME_NS || end > MAX_STORED_TIME_NS;
}

export const REASON_TIME_OUT_OF_RANGE = "start or end time at or after 2^63 ns (year 2262; not storable as a signed 64-bit integer)";
