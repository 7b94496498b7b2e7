/**
 * Bad input gets a clear error and loses nothing: each case asserts the status,
 * the body, and what was (or was not) stored. Runs on every backend.
 */
import { gzipSync } from "node:zlib";
import protobuf from "protobufjs";
import { recordSpans, toJson, toProtobuf } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, getJson, startTestCrux, type TestCrux } from "./harness.ts";

const PROTO = "application/x-protobuf";
const JSON_CT = "application/json";
const statusType = protobuf
  .parse(`syntax = "proto3"; package google.rpc; message Status { int32 code = 1; string message = 2; }`)
  .root.lookupType("google.rpc.Status");
const responseType = protobuf
  .parse(`syntax = "proto3"; message R { P partial_success = 1; } message P { int64 rejected_spans = 1; string error_message = 2; }`)
  .root.lookupType("R");

const hex = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 16).toString(16)).join("");
function jsonSpan(over: Record<string, unknown> = {}) {
  return {
    traceId: hex(32, 1),
    spanId: hex(16, 2),
    name: "s",
    kind: 1,
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000001000000000",
    ...over,
  };
}
const jsonRequest = (spans: object[], resourceAttrs: object[] = [{ key: "service.name", value: { stringValue: "bad-input" } }]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: resourceAttrs }, scopeSpans: [{ scope: { name: "t" }, spans }] }] });

describe.each(backends())("bad input on $name", (backend) => {
  let crux: TestCrux;
  beforeAll(async () => {
    crux = await startTestCrux(backend, { CRUX_MAX_BODY_BYTES: String(8 * 1024 * 1024) });
  });
  afterAll(async () => {
    await crux?.stop();
  });

  const post = (body: Uint8Array | string, contentType: string, headers: Record<string, string> = {}) =>
    fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": contentType, ...headers } });
  const traceCount = async () => (await getJson(`${crux.apiUrl}/api/v1/traces?limit=500`)).body.items.length as number;
  const spansOf = async (traceId: string) => {
    const r = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`);
    if (r.status !== 200) return [];
    const out: any[] = [];
    const walk = (n: any) => (out.push(n), n.children.forEach(walk));
    r.body.roots.forEach(walk);
    return out;
  };

  it("truncated protobuf: 400 with a google.rpc.Status, nothing stored", async () => {
    const before = await traceCount();
    const full = toProtobuf(recordSpans((t) => t.startSpan("x").end()));
    const res = await post(full.slice(0, full.length - 7), PROTO);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain(PROTO);
    const status = statusType.decode(new Uint8Array(await res.arrayBuffer())) as unknown as { message: string };
    expect(status.message.length).toBeGreaterThan(5);
    expect(await traceCount()).toBe(before);
  });

  it("invalid JSON: 400 with a JSON Status saying what is wrong", async () => {
    const res = await post('{"resourceSpans": [ {', JSON_CT);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.message).toMatch(/JSON/i);
  });

  it("JSON that is not OTLP: 400", async () => {
    const res = await post('{"resourceSpans": 5}', JSON_CT);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).message).toMatch(/resourceSpans/);
  });

  it("wrong content type: 415 naming the supported types", async () => {
    const res = await post("hello", "text/plain");
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).message).toMatch(/application\/x-protobuf/);
  });

  it("gzip bomb: 413 without inflating it whole, nothing stored", async () => {
    const before = await traceCount();
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)); // 64 MiB of zeros, ~64 KiB compressed, limit 8 MiB
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await post(bomb, PROTO, { "content-encoding": "gzip" });
    expect(res.status).toBe(413);
    expect(await traceCount()).toBe(before);
  });

  it("gzip and deflate bodies are accepted", async () => {
    const traceId = hex(32, 3);
    const body = Buffer.from(jsonRequest([jsonSpan({ traceId, spanId: hex(16, 4) })]));
    expect((await post(gzipSync(body), JSON_CT, { "content-encoding": "gzip" })).status).toBe(200);
    expect(await spansOf(traceId)).toHaveLength(1);
  });

  it("ids of wrong length: the bad span is rejected and reported, the valid one stored", async () => {
    const traceId = hex(32, 5);
    const res = await post(
      jsonRequest([jsonSpan({ traceId, spanId: hex(16, 6), name: "good" }), jsonSpan({ traceId, spanId: "abcdef", name: "bad" })]),
      JSON_CT,
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.partialSuccess.rejectedSpans).toBe("1");
    expect(body.partialSuccess.errorMessage).toMatch(/span_?id/i);
    const stored = await spansOf(traceId);
    expect(stored.map((s) => s.name)).toEqual(["good"]);
  });

  it("protobuf partial success is encoded as ExportTraceServiceResponse", async () => {
    const spans = recordSpans((t) => {
      t.startSpan("a").end();
    });
    const bytes = toProtobuf(spans);
    const res = await post(bytes, PROTO);
    expect(res.status).toBe(200);
    const decoded = responseType.decode(new Uint8Array(await res.arrayBuffer())) as unknown as { partial_success?: unknown; partialSuccess?: unknown };
    expect(decoded.partialSuccess ?? decoded.partial_success ?? null).toBeNull();
  });

  it("10,000 attributes: kept up to the limit, the drop recorded on the span", async () => {
    const traceId = hex(32, 7);
    const attributes = Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: { intValue: String(i) } }));
    const res = await post(jsonRequest([jsonSpan({ traceId, spanId: hex(16, 8), attributes })]), JSON_CT);
    expect(res.status).toBe(200);
    const [span] = await spansOf(traceId);
    expect(Object.keys(span.attributes)).toHaveLength(crux.config.CRUX_MAX_ATTRIBUTES_PER_SPAN);
    expect(span.limitsApplied.droppedAttributes).toBe(10_000 - crux.config.CRUX_MAX_ATTRIBUTES_PER_SPAN);
  });

  it("a 5 MB string: truncated to the limit and recorded", async () => {
    const traceId = hex(32, 9);
    const big = "x".repeat(5 * 1024 * 1024);
    const res = await post(
      jsonRequest([jsonSpan({ traceId, spanId: hex(16, 10), attributes: [{ key: "input.value", value: { stringValue: big } }] })]),
      JSON_CT,
    );
    expect(res.status).toBe(200);
    const [span] = await spansOf(traceId);
    expect(span.attributes["input.value"].length).toBe(crux.config.CRUX_MAX_ATTRIBUTE_VALUE_LENGTH);
    expect(span.limitsApplied.truncatedKeys).toContain("input.value");
  });

  it("deeply nested values: cut at the depth limit, recorded", async () => {
    const traceId = hex(32, 11);
    let value: object = { stringValue: "leaf" };
    for (let i = 0; i < 50; i++) value = { kvlistValue: { values: [{ key: "n", value }] } };
    const res = await post(jsonRequest([jsonSpan({ traceId, spanId: hex(16, 12), attributes: [{ key: "deep", value }] })]), JSON_CT);
    expect(res.status).toBe(200);
    const [span] = await spansOf(traceId);
    let depth = 0;
    for (let v = span.attributes.deep; v && typeof v === "object"; v = v.n) depth++;
    expect(depth).toBeLessThanOrEqual(crux.config.CRUX_MAX_VALUE_DEPTH);
    expect(span.limitsApplied.truncatedKeys).toContain("deep");
  });

  it("invalid UTF-8 and NUL characters are sanitized, not fatal", async () => {
    const marker = "MARKERMARKER";
    const spans = recordSpans((t) => t.startSpan(marker, { attributes: { note: "a\u0000b" } }).end());
    const bytes = Buffer.from(toProtobuf(spans));
    const at = bytes.indexOf(marker);
    expect(at).toBeGreaterThan(0);
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    bytes[at + 2] = 0xc3; // truncated 2-byte sequence
    const res = await post(bytes, PROTO);
    expect(res.status).toBe(200);
    const stored = await spansOf(spans[0]!.spanContext().traceId);
    expect(stored).toHaveLength(1);
    expect(stored[0].name).toMatch(/MARKER$/);
    expect(stored[0].attributes.note).not.toContain("\u0000");
  });

  it("duplicate export: stored once", async () => {
    const spans = recordSpans((t) => {
      const root = t.startSpan("root");
      root.end();
    });
    const body = toJson(spans);
    expect((await post(body, JSON_CT)).status).toBe(200);
    expect((await post(body, JSON_CT)).status).toBe(200);
    const traceId = spans[0]!.spanContext().traceId;
    expect(await spansOf(traceId)).toHaveLength(1);
    const list = await getJson(`${crux.apiUrl}/api/v1/traces?limit=500`);
    expect(list.body.items.find((t: any) => t.traceId === traceId).spanCount).toBe(1);
  });

  it("non-POST: 405", async () => {
    const res = await fetch(crux.otlpUrl);
    expect(res.status).toBe(405);
  });
});
