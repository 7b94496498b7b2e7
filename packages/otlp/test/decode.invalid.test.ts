import { PermanentError } from "@crux/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { describe, expect, it } from "vitest";
import { decodeExportRequest } from "../src/decode/index.ts";
import { makeSdkSpans } from "./fixtures/decode/sdk-spans.ts";
import { SPAN_ID, TRACE_ID, kv, patchBytes, protoRequest, protoSpan } from "./fixtures/decode/proto-request.ts";

const enc = new TextEncoder();

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("undecodable bodies fail the whole request with PermanentError", () => {
  it("every truncation of a real SDK protobuf body", () => {
    const body = ProtobufTraceSerializer.serializeRequest(makeSdkSpans().spans)!;
    for (let len = 1; len < body.length; len++) {
      const err = thrown(() => decodeExportRequest(body.subarray(0, len), "protobuf"));
      expect(err).toBeInstanceOf(PermanentError);
      expect((err as PermanentError).code).toBe("invalid_request");
    }
  });

  it("a length prefix larger than the body", () => {
    const err = thrown(() => decodeExportRequest(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]), "protobuf"));
    expect((err as PermanentError).message).toBe("invalid protobuf ExportTraceServiceRequest: length-delimited field overruns its message");
  });

  it("invalid JSON, with the parser's message and position", () => {
    const err = thrown(() => decodeExportRequest(enc.encode('{"resourceSpans": [],}'), "json")) as PermanentError;
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.code).toBe("invalid_request");
    expect(err.message).toBe("invalid JSON: Expected double-quoted property name in JSON at position 21");
  });

  it("invalid JSON in a huge body gives a bounded message", () => {
    const text = `{"resourceSpans": [${'{"x":"' + "y".repeat(1_000_000) + '"}'} }`;
    const err = thrown(() => decodeExportRequest(enc.encode(text), "json")) as PermanentError;
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message.startsWith("invalid JSON: ")).toBe(true);
    expect(err.message.length).toBeLessThanOrEqual(501);
  });

  it.each([
    ['{"resourceSpans": 5}', "invalid OTLP/JSON: resourceSpans must be an array, got number 5"],
    ["[]", "invalid OTLP/JSON: the body must be a JSON object (ExportTraceServiceRequest), got an array"],
    ["null", "invalid OTLP/JSON: the body must be a JSON object (ExportTraceServiceRequest), got null"],
    ['{"resourceSpans": ["x"]}', 'invalid OTLP/JSON at resourceSpans[0]: must be an object, got "x"'],
    ['{"resourceSpans": [{"scopeSpans": [{"spans": {}}]}]}', "invalid OTLP/JSON at resourceSpans[0].scopeSpans[0]: spans must be an array, got an object"],
    [
      '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "startTimeUnixNano": "soon"}]}]}]}',
      'invalid OTLP/JSON at resourceSpans[0].scopeSpans[0].spans[0]: startTimeUnixNano must be an unsigned 64-bit integer (decimal string or number), got "soon"',
    ],
    [
      '{"name": "x"}',
      'invalid OTLP/JSON: no "resourceSpans" field (got "name"), so this is not a trace export; one looks like ' +
        '{"resourceSpans":[{"resource":{"attributes":[...]},"scopeSpans":[{"scope":{"name":"..."},"spans":[{"traceId":"<32 hex>","spanId":"<16 hex>","name":"...","startTimeUnixNano":"<ns>","endTimeUnixNano":"<ns>"}]}]}]}',
    ],
  ])("JSON that is not OTLP: %s", (text, message) => {
    const err = thrown(() => decodeExportRequest(enc.encode(text), "json")) as PermanentError;
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.message).toBe(message);
  });
});

describe("empty exports are legal", () => {
  it.each(["{}", '{"resourceSpans": []}', '{"resourceSpans": null}', '{"resource_spans": []}'])("%s decodes to no spans", (text) => {
    expect(decodeExportRequest(enc.encode(text), "json")).toEqual({ spans: [], rejectedSpans: 0, rejectionMessage: "", rejectedByCode: {} });
  });

  it("many unknown keys are listed up to five", () => {
    const err = thrown(() => decodeExportRequest(enc.encode('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}'), "json")) as PermanentError;
    expect(err.message).toContain('(got "a", "b", "c", "d", "e", …)');
  });
});

describe("spans rejected one by one", () => {
  it("a start or end time at or above 2^63 (legal fixed64, not storable) rejects only that span, in protobuf and JSON", () => {
    const TWO_63 = (2n ** 63n).toString();
    const MAX_U64 = (2n ** 64n - 1n).toString();
    const MAX_I64 = (2n ** 63n - 1n).toString();
    const spans = [
      { name: "ok", startTimeUnixNano: "1700000000000000000", endTimeUnixNano: "1700000001000000000" },
      { name: "start-2^63", startTimeUnixNano: TWO_63, endTimeUnixNano: TWO_63 },
      { name: "end-max", startTimeUnixNano: "1700000000000000000", endTimeUnixNano: MAX_U64 },
      { name: "edge", startTimeUnixNano: MAX_I64, endTimeUnixNano: MAX_I64 },
    ];
    const reason = "start or end time at or after 2^63 ns (year 2262; not storable as a signed 64-bit integer)";
    const proto = decodeExportRequest(protoRequest(spans.map((s, i) => protoSpan({ ...s, spanId: SPAN_ID.map((b) => b ^ (i + 1)) }))), "protobuf");
    expect(proto.spans.map((s) => s.name)).toEqual(["ok", "edge"]);
    expect(proto.spans[1]!.endTimeUnixNano).toBe(2n ** 63n - 1n);
    expect(proto.rejectionMessage).toBe(`2 spans rejected: 2 ${reason}`);
    expect(proto.rejectedByCode).toEqual({ time_out_of_range: 2 });

    const jsonSpans = spans.map((s, i) => ({ traceId: "5b8efff798038103d269b633813fc60c", spanId: `eee19b7ec3c1b17${i}`, ...s }));
    const json = decodeExportRequest(enc.encode(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: jsonSpans }] }] })), "json");
    expect(json.spans.map((s) => s.name)).toEqual(["ok", "edge"]);
    expect(json.rejectedSpans).toBe(2);
    expect(json.rejectionMessage).toBe(`2 spans rejected: 2 ${reason}`);
  });

  it("reasons are counted by code", () => {
    const body = protoRequest([
      protoSpan({ spanId: new Uint8Array(7).fill(1) }),
      protoSpan({ traceId: new Uint8Array(16) }),
      protoSpan({ traceId: new Uint8Array(8).fill(1) }),
    ]);
    expect(decodeExportRequest(body, "protobuf").rejectedByCode).toEqual({ invalid_span_id: 1, invalid_trace_id: 2 });
  });

  it("wrong id lengths and zero ids reject only those spans", () => {
    const body = protoRequest([
      protoSpan({ name: "ok-1" }),
      protoSpan({ spanId: new Uint8Array(7).fill(1) }),
      protoSpan({ traceId: new Uint8Array(8).fill(1) }),
      protoSpan({ traceId: new Uint8Array(16) }),
      protoSpan({ spanId: undefined }),
      protoSpan({ parentSpanId: new Uint8Array(4).fill(2) }),
      protoSpan({ name: "ok-2", parentSpanId: SPAN_ID.map((b) => b ^ 1) }),
    ]);
    const result = decodeExportRequest(body, "protobuf");
    expect(result.spans.map((s) => s.name)).toEqual(["ok-1", "ok-2"]);
    expect(result.spans[1]!.parentSpanId).toBe("efe09a7fc2c0b075");
    expect(result.rejectedSpans).toBe(5);
    expect(result.rejectionMessage).toBe(
      "5 spans rejected: 2 invalid span_id (must be 8 bytes), 1 invalid trace_id (must be 16 bytes), " +
        "1 invalid trace_id (all zero), 1 invalid parent_span_id (must be empty or 8 bytes)",
    );
  });

  it("end before start: rejected beyond the 1 s tolerance, kept within it", () => {
    const body = protoRequest([
      protoSpan({ name: "skewed", startTimeUnixNano: "1700000001000000000", endTimeUnixNano: "1700000000500000000" }),
      protoSpan({ name: "backwards", startTimeUnixNano: "1700000002000000001", endTimeUnixNano: "1700000001000000000" }),
    ]);
    const result = decodeExportRequest(body, "protobuf");
    expect(result.spans.map((s) => s.name)).toEqual(["skewed"]);
    expect(result.rejectionMessage).toBe("1 span rejected: 1 end before start");

    const jsonBody = enc.encode(
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  { traceId: "5b8efff798038103d269b633813fc60c", spanId: "eee19b7ec3c1b174", startTimeUnixNano: "3000000000", endTimeUnixNano: "1000000000" },
                  { traceId: "5b8efff798038103d269b633813fc60c", spanId: "eee19b7ec3c1b175", startTimeUnixNano: "3000000000", endTimeUnixNano: "2000000000" },
                ],
              },
            ],
          },
        ],
      }),
    );
    const fromJson = decodeExportRequest(jsonBody, "json");
    expect(fromJson.spans.map((s) => s.spanId)).toEqual(["eee19b7ec3c1b175"]);
    expect(fromJson.rejectedSpans).toBe(1);
  });

  it("an invalid link is dropped and counted, the span is kept", () => {
    const body = protoRequest([
      protoSpan({
        links: [
          { traceId: TRACE_ID, spanId: new Uint8Array(3) },
          { traceId: TRACE_ID, spanId: SPAN_ID },
        ],
      }),
    ]);
    const span = decodeExportRequest(body, "protobuf").spans[0]!;
    expect(span.links.map((l) => l.spanId)).toEqual(["eee19b7ec3c1b174"]);
    expect(span.droppedLinksCount).toBe(1);
  });
});

describe("empty requests", () => {
  it("0 spans for an empty protobuf body, {} and an empty ResourceSpans", () => {
    const none = { spans: [], rejectedSpans: 0, rejectionMessage: "", rejectedByCode: {} };
    expect(decodeExportRequest(new Uint8Array(0), "protobuf")).toEqual(none);
    expect(decodeExportRequest(enc.encode("{}"), "json")).toEqual(none);
    expect(decodeExportRequest(Uint8Array.from([0x0a, 0x00]), "protobuf")).toEqual(none);
  });
});

describe("strings are made safe for Postgres", () => {
  it("invalid UTF-8 and U+0000 in protobuf strings", () => {
    const invalid = [0xff, 0x00, 0xed, 0xa0, 0x80, 0x41]; // stray byte, NUL, CESU-encoded lone surrogate, "A"
    let body = protoRequest(
      [
        protoSpan({
          name: "NAME01",
          status: { code: 2, message: "STAT01" },
          attributes: [kv("KEY001", { stringValue: "VAL001" })],
          events: [{ name: "EVT001", attributes: [kv("ek", { arrayValue: { values: [{ stringValue: "ARR001" }] } })] }],
        }),
      ],
      [kv("RES001", { stringValue: "RSV001" })],
      { name: "SCP001" },
    );
    for (const marker of ["NAME01", "STAT01", "KEY001", "VAL001", "EVT001", "ARR001", "RES001", "RSV001", "SCP001"]) {
      body = patchBytes(body, marker, invalid);
    }
    const span = decodeExportRequest(body, "protobuf").spans[0]!;
    const clean = "\uFFFD\uFFFD\uFFFD\uFFFDA";
    expect(span.name).toBe(clean);
    expect(span.status.message).toBe(clean);
    expect(span.attributes).toEqual({ [clean]: clean });
    expect(span.events[0]!.name).toBe(clean);
    expect(span.events[0]!.attributes).toEqual({ ek: [clean] });
    expect(span.resource).toEqual({ [clean]: clean });
    expect(span.scope.name).toBe(clean);
  });

  it("\\u0000 and lone surrogates in JSON strings", () => {
    const dirty = "a\u0000b\ud800c\udc00";
    const body = enc.encode(
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: dirty, value: { stringValue: dirty } }] },
            scopeSpans: [
              {
                scope: { name: dirty, version: dirty },
                spans: [
                  {
                    traceId: "5b8efff798038103d269b633813fc60c",
                    spanId: "eee19b7ec3c1b174",
                    name: dirty,
                    traceState: dirty,
                    status: { message: dirty },
                    attributes: [{ key: dirty, value: { kvlistValue: { values: [{ key: dirty, value: { stringValue: dirty } }] } } }],
                    events: [{ name: dirty, attributes: [{ key: "k", value: { stringValue: dirty } }] }],
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const span = decodeExportRequest(body, "json").spans[0]!;
    const clean = "ab\uFFFDc\uFFFD";
    expect(span.name).toBe(clean);
    expect(span.traceState).toBe(clean);
    expect(span.status.message).toBe(clean);
    expect(span.attributes).toEqual({ [clean]: { [clean]: clean } });
    expect(span.events[0]).toMatchObject({ name: clean, attributes: { k: clean } });
    expect(span.resource).toEqual({ [clean]: clean });
    expect(span.scope).toMatchObject({ name: clean, version: clean });
  });
});
