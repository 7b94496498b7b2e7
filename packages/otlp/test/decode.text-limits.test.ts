import { describe, expect, it } from "vitest";
import { decodeExportRequest, defaultDecodeLimits, type OtlpFormat } from "../src/decode/index.ts";
import { protobufToOtlpJson, protoRequest, protoSpan, type ProtoSpan } from "./fixtures/decode/proto-request.ts";

/** The request as protobuf, or as OTLP/JSON. */
function encode(format: OtlpFormat, spans: ProtoSpan[]): Uint8Array {
  const body = protoRequest(spans);
  return format === "protobuf" ? body : protobufToOtlpJson(body);
}

describe.each(["protobuf", "json"] as const)("span name, event names and status message limits (%s)", (format) => {
  const limits = { ...defaultDecodeLimits, maxAttributeValueLength: 6 };

  it("truncates each to maxAttributeValueLength and records it", () => {
    const span = decodeExportRequest(
      encode(format, [
        protoSpan({
          name: "chat gpt-4o",
          status: { code: 2, message: "tool failed: timeout" },
          events: [{ name: "short" }, { name: "gen_ai.choice" }],
        }),
      ]),
      format,
      limits,
    ).spans[0]!;
    expect(span.name).toBe("chat g");
    expect(span.status).toEqual({ code: 2, message: "tool f" });
    expect(span.events.map((e) => e.name)).toEqual(["short", "gen_ai"]);
    expect([...span.limitsApplied.truncatedKeys].sort()).toEqual(["event[1].name", "name", "status.message"]);
  });

  it("leaves text within the limit alone and never splits a surrogate pair", () => {
    const span = decodeExportRequest(
      encode(format, [protoSpan({ name: "abcde😀", status: { code: 1, message: "ok" }, events: [{ name: "sixsix" }] })]),
      format,
      limits,
    ).spans[0]!;
    expect(span.name).toBe("abcde");
    expect(span.status.message).toBe("ok");
    expect(span.events[0]!.name).toBe("sixsix");
    expect(span.limitsApplied.truncatedKeys).toEqual(["name"]);
  });

  it("cuts a 5 MB span name to the default limit", () => {
    const huge = "n".repeat(5 * 1024 * 1024);
    const span = decodeExportRequest(encode(format, [protoSpan({ name: huge })]), format).spans[0]!;
    expect(span.name).toHaveLength(defaultDecodeLimits.maxAttributeValueLength);
    expect(span.limitsApplied.truncatedKeys).toEqual(["name"]);
  });
});
