import { PermanentError } from "@crux/core";
import { describe, expect, it } from "vitest";
import { decodeExportRequest } from "../src/decode/index.ts";

const enc = new TextEncoder();
const json = (value: unknown): Uint8Array => enc.encode(JSON.stringify(value));

function request(spans: unknown[], resourceAttributes: unknown[] = []): unknown {
  return {
    resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ scope: { name: "lib", version: "1" }, spans }] }],
  };
}

const TRACE = "5B8EFFF798038103D269B633813FC60C";
const SPAN = "EEE19B7EC3C1B174";
const PARENT = "EEE19B7EC3C1B173";

describe("hand-written OTLP/JSON (docs/conventions.md §2.5)", () => {
  it("decodes the spec example with uppercase hex ids, string timestamps and integer enums", () => {
    const body = json(
      request(
        [
          {
            traceId: TRACE,
            spanId: SPAN,
            parentSpanId: PARENT,
            name: "I'm a server span",
            startTimeUnixNano: "1544712660000000000",
            endTimeUnixNano: "1544712661000000000",
            kind: 2,
            status: { code: 2, message: "boom" },
            attributes: [{ key: "my.span.attr", value: { stringValue: "some value" } }],
          },
        ],
        [{ key: "service.name", value: { stringValue: "my.service" } }],
      ),
    );
    const { spans, rejectedSpans } = decodeExportRequest(body, "json");
    expect(rejectedSpans).toBe(0);
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.traceId).toBe("5b8efff798038103d269b633813fc60c");
    expect(span.spanId).toBe("eee19b7ec3c1b174");
    expect(span.parentSpanId).toBe("eee19b7ec3c1b173");
    expect(span.startTimeUnixNano).toBe(1544712660000000000n);
    expect(span.endTimeUnixNano).toBe(1544712661000000000n);
    expect(span.kind).toBe(2);
    expect(span.status).toEqual({ code: 2, message: "boom" });
    expect(span.attributes).toEqual({ "my.span.attr": "some value" });
    expect(span.resource).toEqual({ "service.name": "my.service" });
    expect(span.scope).toEqual({ name: "lib", version: "1", attributes: {} });
  });

  it("accepts int64 as number or string, keeps unsafe ones as decimal strings", () => {
    const body = json(
      request([
        {
          traceId: TRACE,
          spanId: SPAN,
          startTimeUnixNano: 1544712660000000,
          endTimeUnixNano: "1544712661000000",
          attributes: [
            { key: "n.number", value: { intValue: 42 } },
            { key: "n.string", value: { intValue: "42" } },
            { key: "n.negative", value: { intValue: "-7" } },
            { key: "n.big", value: { intValue: "9223372036854775807" } },
            { key: "n.min", value: { intValue: "-9223372036854775808" } },
            { key: "n.safe.long", value: { intValue: "9007199254740991" } },
          ],
        },
      ]),
    );
    const span = decodeExportRequest(body, "json").spans[0]!;
    expect(span.startTimeUnixNano).toBe(1544712660000000n);
    expect(span.attributes).toEqual({
      "n.number": 42,
      "n.string": 42,
      "n.negative": -7,
      "n.big": "9223372036854775807",
      "n.min": "-9223372036854775808",
      "n.safe.long": 9007199254740991,
    });
  });

  it("accepts enum names leniently, NaN/Infinity doubles, bytes as base64, empty values", () => {
    const body = json(
      request([
        {
          traceId: TRACE,
          spanId: SPAN,
          kind: "SPAN_KIND_CLIENT",
          status: { code: "STATUS_CODE_ERROR" },
          attributes: [
            { key: "d.nan", value: { doubleValue: "NaN" } },
            { key: "d.inf", value: { doubleValue: "Infinity" } },
            { key: "d.ninf", value: { doubleValue: "-Infinity" } },
            { key: "d.plain", value: { doubleValue: 0.5 } },
            { key: "b", value: { bytesValue: "AAEC" } },
            { key: "empty", value: {} },
            { key: "missing" },
            { key: "flag", value: { boolValue: false } },
          ],
        },
      ]),
    );
    const span = decodeExportRequest(body, "json").spans[0]!;
    expect(span.kind).toBe(3);
    expect(span.status.code).toBe(2);
    expect(span.attributes["d.nan"]).toBeNaN();
    expect(span.attributes["d.inf"]).toBe(Infinity);
    expect(span.attributes["d.ninf"]).toBe(-Infinity);
    expect(span.attributes["d.plain"]).toBe(0.5);
    expect(span.attributes["b"]).toBe("AAEC");
    expect(span.attributes["empty"]).toBeNull();
    expect(span.attributes["missing"]).toBeNull();
    expect(span.attributes["flag"]).toBe(false);
  });

  it("maps nested arrayValue/kvlistValue to arrays and objects", () => {
    const body = json(
      request([
        {
          traceId: TRACE,
          spanId: SPAN,
          attributes: [
            {
              key: "gen_ai.input.messages",
              value: {
                arrayValue: {
                  values: [
                    {
                      kvlistValue: {
                        values: [
                          { key: "role", value: { stringValue: "user" } },
                          { key: "parts", value: { arrayValue: { values: [{ stringValue: "hi" }, { intValue: "1" }] } } },
                        ],
                      },
                    },
                    { arrayValue: {} },
                  ],
                },
              },
            },
          ],
        },
      ]),
    );
    const span = decodeExportRequest(body, "json").spans[0]!;
    expect(span.attributes["gen_ai.input.messages"]).toEqual([{ role: "user", parts: ["hi", 1] }, []]);
  });

  it("ignores unknown fields and accepts snake_case keys", () => {
    const body = json({
      resource_spans: [
        {
          futureField: { x: 1 },
          resource: { attributes: [{ key: "service.name", value: { string_value: "svc" } }], entityRefs: [] },
          scope_spans: [
            {
              schemaUrl: "https://example.invalid/schema",
              spans: [
                {
                  trace_id: TRACE,
                  span_id: SPAN,
                  parent_span_id: "",
                  start_time_unix_nano: "10",
                  end_time_unix_nano: "20",
                  dropped_attributes_count: 3,
                  somethingNew: [1, 2, 3],
                  attributes: [{ key: "k", value: { int_value: "5" }, keyStrindex: 9 }],
                },
              ],
            },
          ],
        },
      ],
    });
    const result = decodeExportRequest(body, "json");
    expect(result.spans).toHaveLength(1);
    const span = result.spans[0]!;
    expect(span.parentSpanId).toBeNull();
    expect(span.startTimeUnixNano).toBe(10n);
    expect(span.endTimeUnixNano).toBe(20n);
    expect(span.droppedAttributesCount).toBe(3);
    expect(span.attributes).toEqual({ k: 5 });
    expect(span.resource).toEqual({ "service.name": "svc" });
  });

  it("keeps the last value of a repeated key and stores a __proto__ key as data", () => {
    const body = json(
      request([
        {
          traceId: TRACE,
          spanId: SPAN,
          attributes: [
            { key: "k", value: { stringValue: "first" } },
            { key: "__proto__", value: { stringValue: "not a prototype" } },
            { key: "k", value: { stringValue: "last" } },
          ],
        },
      ]),
    );
    const attrs = decodeExportRequest(body, "json").spans[0]!.attributes;
    expect(attrs["k"]).toBe("last");
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
    expect(Object.keys(attrs)).toEqual(["k", "__proto__"]);
    expect(Object.getOwnPropertyDescriptor(attrs, "__proto__")?.value).toBe("not a prototype");
  });

  it("rejects a base64-looking id: OTLP/JSON ids are hex only", () => {
    const body = json(
      request([
        { traceId: "W47/95gDgQPSabYzgT/GDA==", spanId: SPAN },
        { traceId: TRACE, spanId: "7uGbfsPBsXQ=" },
        { traceId: TRACE, spanId: SPAN },
      ]),
    );
    const result = decodeExportRequest(body, "json");
    expect(result.spans).toHaveLength(1);
    expect(result.rejectedSpans).toBe(2);
    expect(result.rejectionMessage).toBe(
      "2 spans rejected: 1 invalid trace_id (must be 16 bytes as 32 hex characters), 1 invalid span_id (must be 8 bytes as 16 hex characters)",
    );
  });

  it("reads non-ASCII UTF-8 bodies, skips a BOM and replaces invalid UTF-8", () => {
    const text = JSON.stringify(request([{ traceId: TRACE, spanId: SPAN, name: "café 😀 ZZ" }]));
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode(text)]);
    const at = Buffer.from(bytes).indexOf("ZZ");
    bytes[at] = 0xff; // a byte that is never valid UTF-8
    const span = decodeExportRequest(bytes, "json").spans[0]!;
    expect(span.name).toBe("café 😀 \uFFFDZ");
  });

  it("treats an empty body object and empty resourceSpans as zero spans", () => {
    expect(decodeExportRequest(json({}), "json")).toEqual({ spans: [], rejectedSpans: 0, rejectionMessage: "", rejectedByCode: {} });
    expect(decodeExportRequest(json({ resourceSpans: [] }), "json").spans).toEqual([]);
  });

  it("fails the whole request, with the path, when a value has the wrong JSON type", () => {
    const body = json(request([{ traceId: TRACE, spanId: SPAN, attributes: [{ key: "n", value: { intValue: "12abc" } }] }]));
    expect(() => decodeExportRequest(body, "json")).toThrow(PermanentError);
    expect(() => decodeExportRequest(body, "json")).toThrow(
      'invalid OTLP/JSON at resourceSpans[0].scopeSpans[0].spans[0]: attribute "n": intValue must be an integer (decimal string or number), got "12abc"',
    );
  });
});
