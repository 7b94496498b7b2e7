/**
 * A minimal protobuf wire-format reader over one request body. Every read is
 * bounds-checked and fails with WireError, which the decoder turns into a
 * PermanentError: malformed input can neither crash nor hang the receiver.
 * 64-bit values are read into two unsigned 32-bit halves (lo/hi) so callers
 * convert them once, without Long objects.
 */
import { Buffer } from "node:buffer";

export class WireError extends Error {
  override readonly name = "WireError";
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/**
 * Buffer#utf8Slice is what Buffer#toString("utf8") calls after validating its
 * arguments (bounds are already checked here); it is about a third faster on
 * the short strings that dominate spans. Fall back if a runtime lacks it.
 */
interface FastUtf8 {
  utf8Slice(start: number, end: number): string;
}
const fastUtf8 = typeof (Buffer.prototype as unknown as Partial<FastUtf8>).utf8Slice === "function";

/** Nested groups (deprecated proto2 encoding) are only skipped; cap their depth. */
const MAX_GROUP_DEPTH = 64;

export class WireReader {
  readonly buf: Uint8Array;
  private readonly nodeBuf: Buffer;
  private readonly view: DataView;
  pos = 0;
  /** Result halves of the last varint64()/fixed64(). */
  lo = 0;
  hi = 0;

  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.nodeBuf = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get length(): number {
    return this.buf.length;
  }

  /** A varint, keeping its low 32 bits as an unsigned number (tags, lengths, uint32, enums). */
  uint32(): number {
    const buf = this.buf;
    let p = this.pos;
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (p >= buf.length) throw new WireError("truncated varint");
      const byte = buf[p++]!;
      if (shift < 32) value |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        this.pos = p;
        return value >>> 0;
      }
    }
    throw new WireError("varint longer than 10 bytes");
  }

  /** A varint of up to 64 bits into lo/hi. */
  varint64(): void {
    const buf = this.buf;
    let p = this.pos;
    let lo = 0;
    let hi = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (p >= buf.length) throw new WireError("truncated varint");
      const byte = buf[p++]!;
      const bits = byte & 0x7f;
      if (shift < 32) {
        lo |= bits << shift;
        if (shift > 25) hi |= bits >>> (32 - shift);
      } else {
        hi |= bits << (shift - 32);
      }
      if (byte < 0x80) {
        this.pos = p;
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    throw new WireError("varint longer than 10 bytes");
  }

  fixed32(): number {
    const p = this.pos;
    if (p + 4 > this.buf.length) throw new WireError("truncated fixed32");
    this.pos = p + 4;
    return this.view.getUint32(p, true);
  }

  fixed64(): void {
    const p = this.pos;
    if (p + 8 > this.buf.length) throw new WireError("truncated fixed64");
    this.pos = p + 8;
    this.lo = this.view.getUint32(p, true);
    this.hi = this.view.getUint32(p + 4, true);
  }

  double(): number {
    const p = this.pos;
    if (p + 8 > this.buf.length) throw new WireError("truncated double");
    this.pos = p + 8;
    return this.view.getFloat64(p, true);
  }

  /** Reads a length prefix and returns the end offset of the field, which must lie within `limit`. */
  lengthDelimited(limit: number): number {
    const len = this.uint32();
    if (len > limit - this.pos) throw new WireError("length-delimited field overruns its message");
    return this.pos + len;
  }

  /** UTF-8 text of [start, end); invalid sequences become U+FFFD, U+0000 is removed. */
  utf8(start: number, end: number): string {
    if (start === end) return "";
    const s = fastUtf8 ? (this.nodeBuf as unknown as FastUtf8).utf8Slice(start, end) : this.nodeBuf.toString("utf8", start, end);
    return s.indexOf("\u0000") === -1 ? s : s.replaceAll("\u0000", "");
  }

  /** Lowercase hex of [start, end) (ids). */
  hex(start: number, end: number): string {
    return this.nodeBuf.toString("hex", start, end);
  }

  base64(start: number, end: number): string {
    return this.nodeBuf.toString("base64", start, end);
  }

  /** Skips one field value of the given wire type; `limit` is the end of the enclosing message. */
  skip(wireType: number, limit: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.uint32();
        return;
      case WIRE_FIXED64:
        if (this.pos + 8 > limit) throw new WireError("truncated fixed64");
        this.pos += 8;
        return;
      case WIRE_LEN:
        this.pos = this.lengthDelimited(limit);
        return;
      case WIRE_FIXED32:
        if (this.pos + 4 > limit) throw new WireError("truncated fixed32");
        this.pos += 4;
        return;
      case WIRE_START_GROUP:
        this.skipGroup(limit);
        return;
      default:
        throw new WireError(`invalid wire type ${wireType}`);
    }
  }

  private skipGroup(limit: number): void {
    let depth = 1;
    while (depth > 0) {
      if (this.pos >= limit) throw new WireError("unterminated group");
      const tag = this.uint32();
      const wireType = tag & 7;
      if (wireType === WIRE_START_GROUP) {
        if (++depth > MAX_GROUP_DEPTH) throw new WireError("groups nested too deeply");
      } else if (wireType === WIRE_END_GROUP) {
        depth--;
      } else {
        this.skip(wireType, limit);
      }
    }
  }

  /** Reads the next tag inside a message ending at `limit`; field number 0 is invalid. */
  tag(): number {
    const tag = this.uint32();
    if (tag >>> 3 === 0) throw new WireError("invalid field number 0");
    if ((tag & 7) === WIRE_END_GROUP) throw new WireError("unexpected end-group tag");
    return tag;
  }

  /** Called after a message's field loop: the last field must end exactly at the message end. */
  expectEnd(limit: number): void {
    if (this.pos !== limit) throw new WireError("field overruns its message");
  }
}
