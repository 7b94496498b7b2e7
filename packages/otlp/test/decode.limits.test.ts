import type { AttrValue } from "@crux/core";
import { describe, expect, it } from "vitest";
import { decodeExportRequest, defaultDecodeLimits, type OtlpFormat } from "../src/decode/index.ts";
import {
  protobufToOtlpJson,
  TRACE_ID,
  kv,
  protoRequest,
  protoSpan,
  rawNestedArrays,
  rawRequestWithAttributes,
  type ProtoSpan,
} from "./fixtures/decode/proto-request.ts";

const MARKER = "[crux: nesting deeper than 8 removed]";

/** The same request as protobuf and as OTLP/JSON. */
function encode(format: OtlpFormat, spans: ProtoSpan[], resourceAttributes: unknown[] = []): Uint8Array {
  const body = protoRequest(spans, resourceAttributes);
  return format === "protobuf" ? body : protobufToOtlpJson(body);
}

function depthOf(value: AttrValue): number {
  let depth = 0;
  let v = value;
  while (Array.isArray(v)) {
    depth++;
    v = v[0]!;
  }
  return depth;
}

describe.each(["protobuf", "json"] as const)("decode limits (%s)", (format) => {
  it("keeps 1024 of 10,000 attributes and counts the 8,976 dropped", () => {
    const attributes = Array.from({ length: 10_000 }, (_, i) => kv(`attr.${i}`, { intValue: i }));
    const span = decodeExportRequest(encode(format, [protoSpan({ attributes })]), format).spans[0]!;
    expect(Object.keys(span.attributes)).toHaveLength(1024);
    expect(span.attributes["attr.0"]).toBe(0);
    expect(span.attributes["attr.1023"]).toBe(1023);
    expect(span.attributes["attr.1024"]).toBeUndefined();
    expect(span.limitsApplied.droppedAttributes).toBe(8976);
  });

  it("a repeated key keeps its last value and is never counted as dropped", () => {
    const attributes = [
      ...Array.from({ length: 1024 }, (_, i) => kv(`attr.${i}`, { intValue: i })),
      kv("attr.5", { stringValue: "last" }),
      kv("one.too.many", { boolValue: true }),
    ];
    const span = decodeExportRequest(encode(format, [protoSpan({ attributes })]), format).spans[0]!;
    expect(span.attributes["attr.5"]).toBe("last");
    expect(span.limitsApplied.droppedAttributes).toBe(1);
  });

  it("truncates a 5 MB string attribute to the limit and records its key", () => {
    const huge = "é".repeat(1_000) + "x".repeat(5 * 1024 * 1024);
    const span = decodeExportRequest(
      encode(format, [protoSpan({ attributes: [kv("gen_ai.prompt", { stringValue: huge }), kv("small", { stringValue: "ok" })] })]),
      format,
    ).spans[0]!;
    expect(span.attributes["gen_ai.prompt"]).toBe(huge.slice(0, defaultDecodeLimits.maxAttributeValueLength));
    expect(span.attributes["small"]).toBe("ok");
    expect(span.limitsApplied.truncatedKeys).toEqual(["gen_ai.prompt"]);
  });

  it("never leaves half a surrogate pair at the cut", () => {
    const limits = { ...defaultDecodeLimits, maxAttributeValueLength: 5 };
    const span = decodeExportRequest(encode(format, [protoSpan({ attributes: [kv("emoji", { stringValue: "ab😀😀😀" })] })]), format, limits).spans[0]!;
    expect(span.attributes["emoji"]).toBe("ab😀");
  });

  it("applies the value limits to event and resource attributes", () => {
    const limits = { ...defaultDecodeLimits, maxAttributeValueLength: 4 };
    const span = decodeExportRequest(
      encode(
        format,
        [protoSpan({ events: [{ name: "e", attributes: [kv("ek", { stringValue: "123456" })] }] })],
        [kv("service.name", { stringValue: "abcdefgh" })],
      ),
      format,
      limits,
    ).spans[0]!;
    expect(span.events[0]!.attributes["ek"]).toBe("1234");
    expect(span.resource["service.name"]).toBe("abcd");
    expect(span.limitsApplied.truncatedKeys.sort()).toEqual(["event[0].ek", "resource.service.name"]);
  });

  it("keeps maxEventsPerSpan events and maxLinksPerSpan links, counting the rest", () => {
    const events = Array.from({ length: 300 }, (_, i) => ({ name: `e${i}`, timeUnixNano: String(i) }));
    const links = Array.from({ length: 130 }, (_, i) => ({
      traceId: TRACE_ID,
      spanId: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, i + 1]),
    }));
    const span = decodeExportRequest(encode(format, [protoSpan({ events, links, droppedEventsCount: 2, droppedLinksCount: 1 })]), format).spans[0]!;
    expect(span.events).toHaveLength(256);
    expect(span.events[255]!.name).toBe("e255");
    expect(span.droppedEventsCount).toBe(2 + 44);
    expect(span.links).toHaveLength(128);
    expect(span.droppedLinksCount).toBe(1 + 2);
  });
});

function jsonNestedArrays(depth: number): unknown {
  let value: unknown = { stringValue: "leaf" };
  for (let i = 0; i < depth; i++) value = { arrayValue: { values: [value] } };
  return value;
}

describe("nesting deeper than maxValueDepth", () => {
  const bodies = {
    protobuf: rawRequestWithAttributes([
      ["deep", rawNestedArrays(50)],
      ["ok", rawNestedArrays(8)],
    ]),
    json: new TextEncoder().encode(
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: "5b8efff798038103d269b633813fc60c",
                    spanId: "eee19b7ec3c1b174",
                    attributes: [
                      { key: "deep", value: jsonNestedArrays(50) },
                      { key: "ok", value: jsonNestedArrays(8) },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    ),
  };

  it.each(["protobuf", "json"] as const)("is cut at depth 8 and the key recorded (%s)", (format) => {
    const span = decodeExportRequest(bodies[format], format).spans[0]!;
    let inner = span.attributes["deep"]!;
    for (let i = 0; i < 8; i++) inner = (inner as AttrValue[])[0]!;
    expect(inner).toBe(MARKER);
    expect(depthOf(span.attributes["deep"]!)).toBe(8);
    expect(depthOf(span.attributes["ok"]!)).toBe(8);
    let leaf = span.attributes["ok"]!;
    for (let i = 0; i < 8; i++) leaf = (leaf as AttrValue[])[0]!;
    expect(leaf).toBe("leaf");
    expect(span.limitsApplied.truncatedKeys).toEqual(["deep"]);
  });
});

describe("bytes values", () => {
  it("encodes protobuf bytes as base64 and keeps the truncated text valid base64", () => {
    const limits = { ...defaultDecodeLimits, maxAttributeValueLength: 10 };
    const span = decodeExportRequest(
      protoRequest([
        protoSpan({
          attributes: [kv("small", { bytesValue: Uint8Array.from([0, 1, 2]) }), kv("big", { bytesValue: new Uint8Array(100).fill(255) })],
        }),
      ]),
      "protobuf",
      limits,
    ).spans[0]!;
    expect(span.attributes["small"]).toBe("AAEC");
    expect(span.attributes["big"]).toBe("////////");
    expect(span.limitsApplied.truncatedKeys).toEqual(["big"]);
  });
});
