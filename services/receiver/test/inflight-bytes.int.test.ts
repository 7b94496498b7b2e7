/**
 * CRUX_MAX_INFLIGHT_BYTES bounds the request bytes held at once, HTTP and
 * gRPC together: a request that would pass it gets 429 + Retry-After (gRPC
 * UNAVAILABLE + retry-after), before its body is read when it declares a
 * Content-Length, as chunks arrive when it does not, and as a compressed body
 * inflates. Requests held open mid-body stand in for slow, large uploads.
 */
import http from "node:http";
import { gzipSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_METHOD_PATH } from "../src/grpc.ts";
import { backends, eventually, jsonExport, jsonSpan, protoExport, startReceiver, storedSpanNames, type TestReceiver } from "./support.ts";

const BODY_LIMIT = 200_000;
const BUDGET = 300_000;

/** A valid OTLP/JSON export of exactly `size` bytes (padded with trailing spaces, which JSON allows). */
function exportOfSize(name: string, i: number, size: number): Buffer {
  const text = jsonExport([jsonSpan(i, { name })]);
  return Buffer.from(text + " ".repeat(size - text.length));
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A POST whose body is sent in steps; `answer` settles when the server responds. */
function upload(url: string, headers: Record<string, string | number>) {
  const req = http.request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, agent: false });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
  });
  answer.catch(() => {});
  return { req, answer };
}

/** Holds `size` declared bytes in flight: headers and a first slice sent, the rest on finish(). */
function holdOpen(url: string, body: Buffer) {
  const { req, answer } = upload(url, { "content-length": body.length });
  req.write(body.subarray(0, 1_000));
  return { answer, finish: () => req.end(body.subarray(1_000)) };
}

function within<T>(p: Promise<T>, ms: number): Promise<T | "no answer"> {
  return Promise.race([p, new Promise<"no answer">((resolve) => setTimeout(() => resolve("no answer"), ms))]);
}

describe.each(backends())("in-flight byte budget on $name", (backend) => {
  let r: TestReceiver;
  beforeAll(async () => {
    r = await startReceiver(backend, { CRUX_MAX_BODY_BYTES: String(BODY_LIMIT), CRUX_MAX_INFLIGHT_BYTES: String(BUDGET) });
  });
  afterAll(async () => {
    await r?.stop();
  });

  it("HTTP with Content-Length: refused with 429 + Retry-After before its body is sent; accepted once the bytes in flight are answered", async () => {
    const held = holdOpen(r.otlpUrl, exportOfSize("held-1", 1, 200_000));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const refused = upload(r.otlpUrl, { "content-length": 150_000 });
    refused.req.flushHeaders(); // headers only: not one byte of the body
    const answer = await within(refused.answer, 3_000);
    refused.req.destroy();
    expect(answer).not.toBe("no answer");
    expect((answer as Answer).status).toBe(429);
    expect((answer as Answer).headers["retry-after"]).toBe("1");
    expect(JSON.parse((answer as Answer).body).message).toMatch(/too many request bytes in flight \(limit 300000, CRUX_MAX_INFLIGHT_BYTES\)/);

    held.finish();
    expect((await held.answer).status).toBe(200);
    const retried = upload(r.otlpUrl, { "content-length": 150_000 });
    retried.req.end(exportOfSize("retried-1", 2, 150_000));
    expect((await retried.answer).status).toBe(200);
    expect((await storedSpanNames(r.database)).filter((n) => n.endsWith("-1"))).toEqual(["held-1", "retried-1"]);
    await eventually(async () => (r.receiver.inflightBytes() === 0 ? true : undefined));
  });

  it("HTTP without Content-Length (chunked): counted as it arrives, 429 once it passes the budget", async () => {
    const held = holdOpen(r.otlpUrl, exportOfSize("held-2", 3, 200_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const chunked = upload(r.otlpUrl, { "transfer-encoding": "chunked" });
    const body = exportOfSize("chunked-2", 4, 150_000);
    for (let at = 0; at < body.length; at += 10_000) chunked.req.write(body.subarray(at, at + 10_000));
    chunked.req.end();
    const answer = await chunked.answer;
    expect(answer.status).toBe(429);
    expect(answer.headers["retry-after"]).toBe("1");
    held.finish();
    expect((await held.answer).status).toBe(200);
    expect((await storedSpanNames(r.database)).filter((n) => n.endsWith("-2"))).toEqual(["held-2"]);
  });

  it("a gzip body is counted as it inflates: a small upload that inflates past the budget gets 429", async () => {
    const held = holdOpen(r.otlpUrl, exportOfSize("held-3", 5, 200_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const gz = gzipSync(exportOfSize("gzip-3", 6, 150_000));
    expect(gz.length).toBeLessThan(5_000);
    const small = upload(r.otlpUrl, { "content-length": gz.length, "content-encoding": "gzip" });
    small.req.end(gz);
    const answer = await small.answer;
    expect(answer.status).toBe(429);
    held.finish();
    expect((await held.answer).status).toBe(200);
    // Alone, the same upload is accepted.
    const alone = upload(r.otlpUrl, { "content-length": gz.length, "content-encoding": "gzip" });
    alone.req.end(gz);
    expect((await alone.answer).status).toBe(200);
    expect((await storedSpanNames(r.database)).filter((n) => n.endsWith("-3"))).toEqual(["gzip-3", "held-3"]);
  });

  describe("gRPC", () => {
    let client: grpc.Client;
    beforeAll(() => {
      client = new grpc.Client(r.grpcAddress, grpc.credentials.createInsecure());
    });
    afterAll(() => client?.close());

    const exportGrpc = (body: Uint8Array) =>
      new Promise<{ error: grpc.ServiceError | null }>((resolve) =>
        client.makeUnaryRequest(
          EXPORT_METHOD_PATH,
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from(body),
          (error) => resolve({ error }),
        ),
      );

    it("a message that would pass the budget: UNAVAILABLE with retry-after; accepted once the bytes are answered", async () => {
      const held = holdOpen(r.otlpUrl, exportOfSize("held-4", 7, 200_000));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const big = protoExport([jsonSpan(8, { name: `grpc-4-${"x".repeat(150_000)}` })]);
      const refused = await exportGrpc(big);
      expect(refused.error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(refused.error?.details).toMatch(/too many request bytes in flight/);
      expect(refused.error?.metadata.get("retry-after")).toEqual(["1"]);
      held.finish();
      expect((await held.answer).status).toBe(200);
      expect((await exportGrpc(big)).error).toBeNull();
    });

    it("with the budget already spent, a call is refused on its metadata, whatever its size", async () => {
      const a = holdOpen(r.otlpUrl, exportOfSize("held-5a", 9, 200_000));
      const b = holdOpen(r.otlpUrl, exportOfSize("held-5b", 10, 100_000));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await exportGrpc(protoExport([jsonSpan(11, { name: "grpc-5" })]));
      expect(refused.error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(refused.error?.metadata.get("retry-after")).toEqual(["1"]);
      a.finish();
      b.finish();
      expect((await a.answer).status).toBe(200);
      expect((await b.answer).status).toBe(200);
      expect((await exportGrpc(protoExport([jsonSpan(11, { name: "grpc-5" })]))).error).toBeNull();
      expect((await storedSpanNames(r.database)).filter((n) => n.includes("-5"))).toEqual(["grpc-5", "held-5a", "held-5b"]);
    });
  });
});

describe.each(backends())("in-flight request limit on $name", (backend) => {
  it("a request past CRUX_MAX_INFLIGHT_REQUESTS gets 429 on its headers, before its body is read", async () => {
    const r = await startReceiver(backend, { CRUX_MAX_INFLIGHT_REQUESTS: "1" });
    try {
      const held = holdOpen(r.otlpUrl, exportOfSize("held-6", 12, 50_000));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = upload(r.otlpUrl, { "content-length": 50_000 });
      second.req.flushHeaders();
      const answer = await within(second.answer, 3_000);
      second.req.destroy();
      expect(answer).not.toBe("no answer");
      expect((answer as Answer).status).toBe(429);
      expect((answer as Answer).headers["retry-after"]).toBe("1");
      expect(JSON.parse((answer as Answer).body).message).toBe("too many concurrent export requests (limit 1, CRUX_MAX_INFLIGHT_REQUESTS); retry later");
      held.finish();
      expect((await held.answer).status).toBe(200);
      // The slot is freed once the settle enqueue after the answer is done; then the next one passes.
      await eventually(async () => (r.receiver.pipeline.inFlight() === 0 ? true : undefined));
      const next = upload(r.otlpUrl, { "content-length": 50_000 });
      next.req.end(exportOfSize("next-6", 13, 50_000));
      expect((await next.answer).status).toBe(200);
    } finally {
      await r.stop();
    }
  });
});
