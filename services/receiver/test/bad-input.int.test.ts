/**
 * Bad input gets a clear answer and loses nothing: a span that cannot be
 * stored is rejected alone (partial_success), a body that is not an OTLP
 * export is refused whole with a message saying what one looks like, and a
 * wrong path says where exports go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  backends,
  decodeProtoResponse,
  decodeProtoStatus,
  jsonExport,
  jsonSpan,
  protoExport,
  startReceiver,
  storedSpanNames,
  type TestReceiver,
} from "./support.ts";

const PROTO = "application/x-protobuf";
const JSON_CT = "application/json";
const TWO_63 = (2n ** 63n).toString();
const MAX_U64 = (2n ** 64n - 1n).toString();

describe.each(backends())("bad input on $name", (backend) => {
  let r: TestReceiver;
  beforeAll(async () => {
    r = await startReceiver(backend);
  });
  afterAll(async () => {
    await r?.stop();
  });

  const post = (body: Uint8Array | string, contentType: string) => fetch(r.otlpUrl, { method: "POST", body, headers: { "content-type": contentType } });

  it.each(["protobuf", "json"] as const)(
    "timestamps at 2^63 and 2^64-1 (%s): 200, those two spans rejected with a clear message, the valid ones stored",
    async (format) => {
      const base = format === "json" ? 100 : 200;
      const spans = [
        jsonSpan(base + 1, { name: `${format}-valid-1` }),
        jsonSpan(base + 2, { name: `${format}-start-2^63`, startTimeUnixNano: TWO_63, endTimeUnixNano: TWO_63 }),
        jsonSpan(base + 3, { name: `${format}-valid-2` }),
        jsonSpan(base + 4, { name: `${format}-end-2^64-1`, endTimeUnixNano: MAX_U64 }),
        jsonSpan(base + 5, { name: `${format}-valid-3` }),
      ];
      const res = format === "json" ? await post(jsonExport(spans), JSON_CT) : await post(protoExport(spans), PROTO);
      expect(res.status).toBe(200);
      const partial =
        format === "json" ? ((await res.json()) as any).partialSuccess : decodeProtoResponse(new Uint8Array(await res.arrayBuffer())).partialSuccess;
      expect(Number(partial.rejectedSpans)).toBe(2);
      expect(partial.errorMessage).toBe("2 spans rejected: 2 start or end time at or after 2^63 ns (year 2262; not storable as a signed 64-bit integer)");
      const stored = (await storedSpanNames(r.database)).filter((n) => n.startsWith(`${format}-`));
      expect(stored).toEqual([`${format}-valid-1`, `${format}-valid-2`, `${format}-valid-3`]);
    },
  );

  it('a JSON body without resourceSpans ({"name":"x"}): 400 saying what an OTLP/JSON export looks like, nothing stored', async () => {
    const before = await storedSpanNames(r.database);
    const res = await post('{"name":"x"}', JSON_CT);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string };
    expect(body.message).toMatch(/no "resourceSpans" field \(got "name"\)/);
    expect(body.message).toContain('{"resourceSpans":[{"resource"');
    expect(await storedSpanNames(r.database)).toEqual(before);
  });

  it.each(["{}", '{"resourceSpans":[]}'])("an empty export %s stays a legal empty export: 200", async (text) => {
    const res = await post(text, JSON_CT);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
  });

  it("JSON sent as protobuf: 400 saying it looks like JSON and to send Content-Type: application/json", async () => {
    for (const text of [jsonExport([jsonSpan(300)]), `[${jsonExport([jsonSpan(301)])}]`, '  {"resourceSpans": []}']) {
      const res = await post(text, PROTO);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain(PROTO);
      const status = decodeProtoStatus(new Uint8Array(await res.arrayBuffer()));
      expect(status.message).toMatch(/^the body looks like JSON, not protobuf: send OTLP\/JSON with Content-Type: application\/json/);
    }
    expect((await storedSpanNames(r.database)).filter((n) => n === "span-300" || n === "span-301")).toEqual([]);
  });

  it("a protobuf decode failure of a non-JSON body keeps the decoder's message", async () => {
    const res = await post(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]), PROTO);
    expect(res.status).toBe(400);
    expect(decodeProtoStatus(new Uint8Array(await res.arrayBuffer())).message).toBe(
      "invalid protobuf ExportTraceServiceRequest: length-delimited field overruns its message",
    );
  });

  it("POST /v1/trace (a typo): 404 {code, message} naming /v1/traces", async () => {
    const res = await fetch(`${r.baseUrl}/v1/trace`, { method: "POST", body: "{}", headers: { "content-type": JSON_CT } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("not_found");
    expect(body.message).toBe(
      "no route POST /v1/trace here: OTLP/HTTP trace exports go to POST /v1/traces; this port also serves GET /livez, /readyz, /healthz and /metrics",
    );
  });

  it("an /api/ path on the OTLP port: 404 pointing at the API's port", async () => {
    const res = await fetch(`${r.baseUrl}/api/v1/traces?limit=5`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { code: string; message: string };
    expect(body).toEqual({
      code: "not_found",
      message:
        "no route GET /api/v1/traces here: this is the OTLP receiver; the REST API (/api/v1/...) listens on its own port (CRUX_API_PORT, default 8080). OTLP/HTTP trace exports go to POST /v1/traces",
    });
  });

  it("/v1/metrics and /v1/logs: 404 saying only traces are accepted", async () => {
    const res = await fetch(`${r.baseUrl}/v1/logs`, { method: "POST", body: "{}", headers: { "content-type": JSON_CT } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe(
      "no route POST /v1/logs here: Crux accepts traces only; OTLP/HTTP trace exports go to POST /v1/traces",
    );
  });
});

describe("the 404 hint names the API port when it is known", () => {
  it("an /api/ path names the configured CRUX_API_PORT", async () => {
    const r = await startReceiver(backends()[0]!, {}, { apiPort: 18080 });
    try {
      const res = await fetch(`${r.baseUrl}/api/v1/traces`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toContain("the REST API (/api/v1/...) listens on port 18080");
    } finally {
      await r.stop();
    }
  });
});
