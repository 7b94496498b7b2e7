/**
 * Thin helpers over protobufjs's Reader for the one-pass decoder. The Reader
 * does the byte-level reading (varints, fixed32, doubles, skipping) and
 * throws RangeError when a read runs past the body; what it lacks lives here:
 * sub-message bounds (a length prefix must fit its enclosing message, and a
 * message's last field must end exactly at its end), a depth-capped group
 * skip with our own message, and UTF-8/hex/base64 of a byte range through
 * Buffer (faster than protobufjs's string(), and U+0000 removed for Postgres).
 * Failures are WireError; decodeProtobufRequest turns the Reader's RangeError
 * into one too, and the caller maps both to PermanentError.
 */
import { Buffer } from "node:buffer";
import protobuf from "protobufjs";

export class WireError extends Error {
  override readonly name = "WireError";
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** A protobufjs Reader over a Buffer view of the body (a BufferReader). */
export type WireReader = protobuf.Reader;

export function createWireReader(body: Uint8Array): WireReader {
  return protobuf.Reader.create(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}

/**
 * Buffer#utf8Slice is what Buffer#toString("utf8") calls after validating its
 * arguments (callers pass checked bounds); it is about a third faster on the
 * short strings that dominate spans. Fall back if a runtime lacks it.
 */
interface FastUtf8 {
  utf8Slice(start: number, end: number): string;
}
const fastUtf8 = typeof (Buffer.prototype as unknown as Partial<FastUtf8>).utf8Slice === "function";

/** Nested groups (deprecated proto2 encoding) are only skipped; cap their depth. */
const MAX_GROUP_DEPTH = 64;

/** The next tag; field number 0 and a stray end-group tag are invalid. */
export function readTag(r: WireReader): number {
  const tag = r.uint32();
  if (tag >>> 3 === 0) throw new WireError("invalid field number 0");
  if ((tag & 7) === WIRE_END_GROUP) throw new WireError("unexpected end-group tag");
  return tag;
}

/** Reads a length prefix and returns the end offset of the field, which must lie within `limit`. */
export function lengthDelimited(r: WireReader, limit: number): number {
  const len = r.uint32();
  if (len > limit - r.pos) throw new WireError("length-delimited field overruns its message");
  return r.pos + len;
}

/** Called after a message's field loop: the last field must end exactly at the message end. */
export function expectEnd(r: WireReader, limit: number): void {
  if (r.pos !== limit) throw new WireError("field overruns its message");
}

/**
 * Skips one field value of an unknown field. Groups are skipped here with a
 * depth cap; the rest by Reader#skipType (an overrun of the enclosing message
 * is caught by expectEnd, of the body by the Reader).
 */
export function skipField(r: WireReader, wireType: number, limit: number): void {
  if (wireType === WIRE_START_GROUP) skipGroup(r, limit);
  else if (wireType > WIRE_FIXED32) throw new WireError(`invalid wire type ${wireType}`);
  else r.skipType(wireType);
}

function skipGroup(r: WireReader, limit: number): void {
  let depth = 1;
  while (depth > 0) {
    if (r.pos >= limit) throw new WireError("unterminated group");
    const wireType = r.uint32() & 7;
    if (wireType === WIRE_START_GROUP) {
      if (++depth > MAX_GROUP_DEPTH) throw new WireError("groups nested too deeply");
    } else if (wireType === WIRE_END_GROUP) {
      depth--;
    } else {
      skipField(r, wireType, limit);
    }
  }
}

/**
 * A 64-bit varint as two unsigned 32-bit halves, passed to `convert`.
 * Reader#int64() allocates a LongBits and a Long per value, which costs
 * several percent of decode time on spans full of token counts.
 */
export function readVarint64<T>(r: WireReader, convert: (lo: number, hi: number) => T): T {
  const buf = r.buf;
  let p = r.pos;
  let lo = 0;
  let hi = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    if (p >= r.len) throw new WireError("truncated varint");
    const byte = buf[p++]!;
    const bits = byte & 0x7f;
    if (shift < 32) {
      lo |= bits << shift;
      if (shift > 25) hi |= bits >>> (32 - shift);
    } else {
      hi |= bits << (shift - 32);
    }
    if (byte < 0x80) {
      r.pos = p;
      return convert(lo >>> 0, hi >>> 0);
    }
  }
  throw new WireError("varint longer than 10 bytes");
}

/** UTF-8 text of [start, end); invalid sequences become U+FFFD, U+0000 is removed. */
export function utf8(r: WireReader, start: number, end: number): string {
  if (start === end) return "";
  const buf = r.buf as Buffer;
  const s = fastUtf8 ? (buf as unknown as FastUtf8).utf8Slice(start, end) : buf.toString("utf8", start, end);
  return s.indexOf("\u0000") === -1 ? s : s.replaceAll("\u0000", "");
}

/** Lowercase hex of [start, end) (ids). */
export function hex(r: WireReader, start: number, end: number): string {
  return (r.buf as Buffer).toString("hex", start, end);
}

export function base64(r: WireReader, start: number, end: number): string {
  return (r.buf as Buffer).toString("base64", start, end);
}
