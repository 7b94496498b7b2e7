import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeExportRequest, type OtlpFormat } from "../src/decode/index.ts";
import { T0_NS, hrTimeToNs, makeSdkSpans } from "./fixtures/decode/sdk-spans.ts";

function serialize(format: OtlpFormat, spans: ReadableSpan[]): Uint8Array {
  const bytes = format === "protobuf" ? ProtobufTraceSerializer.serializeRequest(spans) : JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error("serializer returned nothing");
  return bytes;
}

describe.each(["protobuf", "json"] as const)("SDK-produced OTLP %s round trip", (format) => {
  const fx = makeSdkSpans();
  const result = decodeExportRequest(serialize(format, fx.spans), format);
  const parent = result.spans.find((s) => s.name === "invoke_agent planner")!;
  const child = result.spans.find((s) => s.name === "chat gpt-4o")!;

  it("keeps every span and rejects none", () => {
    expect(result.spans).toHaveLength(2);
    expect(result.rejectedSpans).toBe(0);
    expect(result.rejectionMessage).toBe("");
  });

  it("decodes ids as the SDK's lowercase hex, with the parent link", () => {
    expect(parent.traceId).toBe(fx.parent.spanContext().traceId);
    expect(parent.spanId).toBe(fx.parent.spanContext().spanId);
    expect(parent.parentSpanId).toBeNull();
    expect(child.traceId).toBe(fx.parent.spanContext().traceId);
    expect(child.spanId).toBe(fx.child.spanContext().spanId);
    expect(child.parentSpanId).toBe(fx.parent.spanContext().spanId);
    expect(child.flags & 0xff).toBe(1); // sampled
  });

  it("keeps nanosecond timestamps, kind and status", () => {
    expect(parent.startTimeUnixNano).toBe(T0_NS);
    expect(parent.endTimeUnixNano).toBe(T0_NS + 900_000n);
    expect(child.startTimeUnixNano).toBe(hrTimeToNs(fx.child.startTime));
    expect(child.endTimeUnixNano).toBe(T0_NS + 500_000n);
    expect(parent.kind).toBe(2);
    expect(child.kind).toBe(3);
    expect(parent.status).toEqual({ code: 1, message: "" });
    expect(child.status).toEqual({ code: 2, message: "rate limited" });
  });

  it("decodes attributes of every type", () => {
    expect(parent.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "planner",
      "gen_ai.usage.input_tokens": 1234,
      "gen_ai.request.temperature": 0.25,
      "crux.flag": true,
      "tags.strings": ["a", "b"],
      "tags.ints": [1, 2, 3],
      "tags.doubles": [1.5, 2.5],
      "tags.bools": [true, false],
    });
    expect(child.attributes).toEqual({ "gen_ai.request.model": "gpt-4o" });
    expect(parent.droppedAttributesCount).toBe(0);
    expect(parent.limitsApplied).toEqual({ truncatedKeys: [], droppedAttributes: 0 });
  });

  it("decodes events, including the recorded exception", () => {
    expect(child.events).toHaveLength(2);
    expect(child.events[0]).toEqual({
      timeUnixNano: T0_NS + 2_000n,
      name: "gen_ai.content.prompt",
      attributes: { "gen_ai.prompt": "hello", "retry.count": 2 },
      droppedAttributesCount: 0,
    });
    expect(child.events[1]!.name).toBe("exception");
    expect(child.events[1]!.timeUnixNano).toBe(T0_NS + 3_000n);
    expect(child.events[1]!.attributes["exception.message"]).toBe("rate limited");
    expect(child.events[1]!.attributes["exception.type"]).toBe("Error");
    expect(child.droppedEventsCount).toBe(0);
  });

  it("decodes links", () => {
    expect(parent.links).toEqual([
      { traceId: fx.linkedTraceId, spanId: fx.linkedSpanId, traceState: "", attributes: { "link.reason": "handoff" }, flags: expect.any(Number) },
    ]);
    expect(parent.links[0]!.flags & 0xff).toBe(1);
    expect(parent.droppedLinksCount).toBe(0);
  });

  it("shares one resource object between the spans of a ResourceSpans, and keeps the scope", () => {
    expect(parent.resource["service.name"]).toBe("crux-decode-test");
    expect(parent.resource["deployment.environment"]).toBe("test");
    expect(parent.resource).toBe(child.resource);
    expect(parent.scope.name).toBe("crux.decode.test");
    expect(parent.scope.version).toBe("1.2.3");
    expect(parent.scope.attributes).toEqual({});
  });
});

describe("protobuf and JSON agree", () => {
  it("decodes the same SDK spans to equal objects", () => {
    const fx = makeSdkSpans();
    const fromProto = decodeExportRequest(serialize("protobuf", fx.spans), "protobuf");
    const fromJson = decodeExportRequest(serialize("json", fx.spans), "json");
    expect(fromJson).toEqual(fromProto);
  });
});
