import { describe, expect, it } from "vitest";
import { encodeExportResponse, encodeRpcStatus } from "../src/decode/index.ts";
import { ExportTraceServiceResponseType, RpcStatusType } from "../src/proto.ts";

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe("encodeExportResponse", () => {
  it("full success: empty protobuf body and JSON {}", () => {
    expect(encodeExportResponse("protobuf")).toHaveLength(0);
    expect(text(encodeExportResponse("json"))).toBe("{}");
  });

  it("partial success in protobuf decodes back to the same fields", () => {
    const bytes = encodeExportResponse("protobuf", { rejectedSpans: 3, errorMessage: "3 spans rejected: 3 end before start" });
    const decoded = ExportTraceServiceResponseType.toObject(ExportTraceServiceResponseType.decode(bytes), { longs: Number });
    expect(decoded).toEqual({ partialSuccess: { rejectedSpans: 3, errorMessage: "3 spans rejected: 3 end before start" } });
  });

  it("partial success in JSON has rejectedSpans as a decimal string (int64)", () => {
    const body = text(encodeExportResponse("json", { rejectedSpans: 3, errorMessage: 'bad "ids"' }));
    expect(body).toBe('{"partialSuccess":{"rejectedSpans":"3","errorMessage":"bad \\"ids\\""}}');
    expect(JSON.parse(body)).toEqual({ partialSuccess: { rejectedSpans: "3", errorMessage: 'bad "ids"' } });
  });
});

describe("encodeRpcStatus", () => {
  it("protobuf google.rpc.Status decodes back", () => {
    const bytes = encodeRpcStatus("protobuf", 3, "invalid JSON: Unexpected end of JSON input");
    const decoded = RpcStatusType.toObject(RpcStatusType.decode(bytes));
    expect(decoded).toEqual({ code: 3, message: "invalid JSON: Unexpected end of JSON input" });
  });

  it("JSON google.rpc.Status", () => {
    expect(JSON.parse(text(encodeRpcStatus("json", 14, "overloaded")))).toEqual({ code: 14, message: "overloaded" });
    expect(text(encodeRpcStatus("json", 3, "x"))).toBe('{"code":3,"message":"x"}');
  });
});
