import { PermanentError, type AttrValue, type DecodedSpan } from "@crux/core";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { describe, expect, it } from "vitest";
import { decodeExportRequest, type DecodeResult, type OtlpFormat } from "../src/decode/index.ts";
import { lenField, SPAN_ID, TRACE_ID } from "./fixtures/decode/proto-request.ts";
import { makeSdkSpans } from "./fixtures/decode/sdk-spans.ts";

/** mulberry32: a small seeded PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unsafeString(s: string): boolean {
  return s.includes("\u0000") || !(s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

function unsafeValue(v: AttrValue): boolean {
  if (typeof v === "string") return unsafeString(v);
  if (Array.isArray(v)) return v.some(unsafeValue);
  if (v !== null && typeof v === "object") return Object.entries(v).some(([k, x]) => unsafeString(k) || unsafeValue(x));
  return false;
}

function unsafeSpan(s: DecodedSpan): boolean {
  const attrs = [s.attributes, s.resource, s.scope.attributes, ...s.events.map((e) => e.attributes), ...s.links.map((l) => l.attributes)];
  return (
    [s.name, s.traceState, s.status.message, s.scope.name, s.scope.version, ...s.events.map((e) => e.name)].some(unsafeString) ||
    attrs.some((a) => unsafeValue(a))
  );
}

/** Decodes and returns the outcome; any throw other than PermanentError fails the test. */
function outcome(body: Uint8Array, format: OtlpFormat): DecodeResult | PermanentError {
  try {
    const result = decodeExportRequest(body, format);
    expect(result.spans.some(unsafeSpan)).toBe(false);
    expect(result.rejectedSpans).toBeGreaterThanOrEqual(0);
    return result;
  } catch (err) {
    if (err instanceof PermanentError) return err;
    throw err;
  }
}

describe("hostile input never ends in anything but a result or PermanentError", () => {
  const fx = makeSdkSpans();
  const valid: Record<OtlpFormat, Uint8Array> = {
    protobuf: ProtobufTraceSerializer.serializeRequest(fx.spans)!,
    json: JsonTraceSerializer.serializeRequest(fx.spans)!,
  };

  it.each(["protobuf", "json"] as const)("random bytes (%s)", (format) => {
    const rand = prng(1234);
    let permanent = 0;
    for (let i = 0; i < 300; i++) {
      const body = Uint8Array.from({ length: Math.floor(rand() * 512) }, () => Math.floor(rand() * 256));
      if (outcome(body, format) instanceof PermanentError) permanent++;
    }
    expect(permanent).toBeGreaterThan(0);
  });

  it.each(["protobuf", "json"] as const)("mutated real payloads (%s)", (format) => {
    const rand = prng(99);
    const counts = { decoded: 0, permanent: 0 };
    for (let i = 0; i < 400; i++) {
      const body = Uint8Array.from(valid[format]);
      const flips = 1 + Math.floor(rand() * 4);
      for (let f = 0; f < flips; f++) body[Math.floor(rand() * body.length)] = Math.floor(rand() * 256);
      if (outcome(body, format) instanceof PermanentError) counts.permanent++;
      else counts.decoded++;
    }
    // Both outcomes must occur, or the mutations test nothing.
    expect(counts.decoded).toBeGreaterThan(0);
    expect(counts.permanent).toBeGreaterThan(0);
  });

  it("a huge repeated field of id-less spans is counted, not crashed on", () => {
    const emptySpan = lenField(2, new Uint8Array(0)); // ScopeSpans.spans = {}
    const scopeSpans = new Uint8Array(emptySpan.length * 200_000);
    for (let i = 0; i < 200_000; i++) scopeSpans.set(emptySpan, i * emptySpan.length);
    const body = lenField(1, lenField(2, scopeSpans));
    const result = decodeExportRequest(body, "protobuf");
    expect(result.spans).toHaveLength(0);
    expect(result.rejectedSpans).toBe(200_000);
    expect(result.rejectionMessage).toBe("200000 spans rejected: 200000 invalid trace_id (must be 16 bytes)");
  });

  it("deep nesting of unknown groups and messages is skipped without recursion blow-up", () => {
    // 100k start-group tags inside a span: must fail cleanly (depth cap), not overflow the stack.
    const groups = new Uint8Array(100_000).fill((99 << 3) | 3);
    const span = Uint8Array.from([...lenField(1, TRACE_ID), ...lenField(2, SPAN_ID), ...groups]);
    const err = outcome(lenField(1, lenField(2, lenField(2, span))), "protobuf");
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError).message).toBe("invalid protobuf ExportTraceServiceRequest: groups nested too deeply");
  });
});
