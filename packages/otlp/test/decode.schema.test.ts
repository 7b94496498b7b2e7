import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { ANY_VALUE_TAG, SPAN_TAG, STATUS_TAG, fieldIds, fieldTags, tagDispatch, dispatchCode } from "../src/decode/schema.ts";
import { AnyValueType, KeyValueType, SpanType } from "../src/proto.ts";

// The decoder takes its field numbers from the bundled .proto files; these are
// the OTLP spec numbers, so an accidental edit of those files fails here.
describe("field numbers derived from the .proto files match the OTLP spec", () => {
  it("Span", () => {
    expect(fieldIds(SpanType, ["traceId", "spanId", "parentSpanId", "name", "startTimeUnixNano", "attributes", "status", "flags"])).toEqual({
      traceId: 1,
      spanId: 2,
      parentSpanId: 4,
      name: 5,
      startTimeUnixNano: 7,
      attributes: 9,
      status: 15,
      flags: 16,
    });
  });

  it("AnyValue and KeyValue", () => {
    expect(fieldIds(AnyValueType, ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"])).toEqual({
      stringValue: 1,
      boolValue: 2,
      intValue: 3,
      doubleValue: 4,
      arrayValue: 5,
      kvlistValue: 6,
      bytesValue: 7,
    });
    expect(fieldIds(KeyValueType, ["key", "value"])).toEqual({ key: 1, value: 2 });
  });

  it("tags carry the wire type of each field's .proto type", () => {
    expect(SPAN_TAG.traceId).toBe((1 << 3) | 2); // bytes
    expect(SPAN_TAG.kind).toBe((6 << 3) | 0); // enum
    expect(SPAN_TAG.startTimeUnixNano).toBe((7 << 3) | 1); // fixed64
    expect(SPAN_TAG.flags).toBe((16 << 3) | 5); // fixed32
    expect(SPAN_TAG.status).toBe((15 << 3) | 2); // message
    expect(STATUS_TAG.code).toBe((3 << 3) | 0);
    expect(ANY_VALUE_TAG.doubleValue).toBe((4 << 3) | 1);
    expect(ANY_VALUE_TAG.intValue).toBe((3 << 3) | 0);
  });

  it("follows an edited schema and rejects a field it does not have", () => {
    const edited = protobuf.parse('syntax = "proto3"; message M { bytes trace_id = 3; fixed64 t = 12; }').root.lookupType("M");
    expect(fieldIds(edited, ["traceId", "t"])).toEqual({ traceId: 3, t: 12 });
    expect(fieldTags(edited, ["t"])).toEqual({ t: (12 << 3) | 1 });
    expect(() => fieldIds(edited, ["spanId"])).toThrow("M has no field spanId");
  });
});

describe("tagDispatch", () => {
  it("maps known tags to their codes and everything else to 0", () => {
    const table = tagDispatch([
      [0x0a, 1],
      [0x85, 2],
    ]);
    expect(dispatchCode(table, 0x0a)).toBe(1);
    expect(dispatchCode(table, 0x85)).toBe(2);
    expect(dispatchCode(table, 0x12)).toBe(0);
    expect(dispatchCode(table, 0x86)).toBe(0);
    expect(dispatchCode(table, 1 << 20)).toBe(0);
    expect(() =>
      tagDispatch([
        [0x0a, 1],
        [0x0a, 2],
      ]),
    ).toThrow("bad dispatch entry");
  });
});
