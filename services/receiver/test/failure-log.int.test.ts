/**
 * Every failed export, HTTP or gRPC, logs one bounded line: status, reason,
 * project, span count when known and, for storage failures, the database's
 * short description without SQL or parameters. Identical failures repeating
 * within the window are counted, and the count is logged. Log output is
 * captured through a pino destination stream.
 */
import { gzipSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { EXPORT_METHOD_PATH } from "../src/grpc.ts";
import { backends, capturedLog, eventually, jsonExport, jsonSpan, startReceiver, throughProxy } from "./support.ts";

const JSON_CT = { "content-type": "application/json" };
const failures = (lines: Record<string, any>[]) => lines.filter((l) => l.msg === "export failed");

describe.each(backends())("failed exports are logged on $name", (backend) => {
  it("one line per failure with status, reason and what is known; HTTP and gRPC", async () => {
    const { log, lines } = capturedLog();
    const r = await startReceiver(backend, { CRUX_MAX_BODY_BYTES: "100000" }, { log });
    const client = new grpc.Client(r.grpcAddress, grpc.credentials.createInsecure());
    try {
      expect((await fetch(r.otlpUrl, { method: "POST", body: '{"resourceSpans": [', headers: JSON_CT })).status).toBe(400);
      expect((await fetch(r.otlpUrl, { method: "POST", body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
      const bomb = gzipSync(Buffer.alloc(1_000_000));
      expect((await fetch(r.otlpUrl, { method: "POST", body: bomb, headers: { ...JSON_CT, "content-encoding": "gzip" } })).status).toBe(413);
      const grpcError = await new Promise<grpc.ServiceError | null>((resolve) =>
        client.makeUnaryRequest(
          EXPORT_METHOD_PATH,
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
          (err) => resolve(err),
        ),
      );
      expect(grpcError?.code).toBe(grpc.status.INVALID_ARGUMENT);

      const logged = failures(lines);
      expect(logged.map((l) => [l.transport, l.status, l.kind, l.reason])).toEqual([
        ["http", 400, "bad_request", "invalid_request"],
        ["http", 415, "unsupported_media_type", "content_type"],
        ["http", 413, "too_large", "body_too_large"],
        ["grpc", "INVALID_ARGUMENT", "bad_request", "invalid_request"],
      ]);
      expect(logged[0]).toMatchObject({ level: 40, project: "default", message: expect.stringMatching(/^invalid JSON: /) });
      expect(logged[3]!.message).toMatch(/invalid protobuf ExportTraceServiceRequest/);
      for (const line of logged) expect(JSON.stringify(line).length).toBeLessThan(1_000);
    } finally {
      client.close();
      await r.stop();
    }
  });

  it("identical failures within the window are logged once, then counted ('suppressed')", async () => {
    const { log, lines } = capturedLog();
    const r = await startReceiver(backend, {}, { log, failureLogWindowMs: 60_000 });
    try {
      for (let i = 0; i < 5; i++) expect((await fetch(r.otlpUrl, { method: "POST", body: '{"name":"x"}', headers: JSON_CT })).status).toBe(400);
      expect(failures(lines)).toHaveLength(1);
    } finally {
      await r.stop();
    }
    const summary = lines.filter((l) => l.msg === "identical export failures suppressed");
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ suppressed: 4, status: 400, reason: "invalid_request", transport: "http" });
  });

  it("after the window, the next identical failure is logged again with the count in between", async () => {
    const { log, lines } = capturedLog();
    const r = await startReceiver(backend, {}, { log, failureLogWindowMs: 200 });
    try {
      for (let i = 0; i < 3; i++) await fetch(r.otlpUrl, { method: "POST", body: "{", headers: JSON_CT });
      await eventually(async () => (lines.some((l) => l.msg === "identical export failures suppressed" && l.suppressed === 2) ? true : undefined), 3_000);
      await fetch(r.otlpUrl, { method: "POST", body: "{", headers: JSON_CT });
      expect(failures(lines)).toHaveLength(2);
    } finally {
      await r.stop();
    }
  });

  if (backend.name === "postgres+redis") {
    it("Postgres down mid-ingest: 503 + Retry-After, an error line with the span count and no SQL; recovers without a restart", async () => {
      const { log, lines } = capturedLog();
      const base = await backend.createDatabase();
      const { database, proxy } = await throughProxy(base);
      const r = await startReceiver(backend, {}, { log, database });
      try {
        await proxy.down();
        const spans = [jsonSpan(1, { name: "secret-span-name" }), jsonSpan(2), jsonSpan(3)];
        const res = await fetch(r.otlpUrl, { method: "POST", body: jsonExport(spans), headers: JSON_CT });
        expect(res.status).toBe(503);
        expect(res.headers.get("retry-after")).toBe("5");
        const [line] = failures(lines);
        expect(line).toMatchObject({
          level: 50,
          transport: "http",
          status: 503,
          kind: "unavailable",
          reason: "storage_unavailable",
          project: "default",
          spans: 3,
        });
        expect(line!.error.message).toMatch(/ECONNREFUSED|terminated|connect/i);
        const text = JSON.stringify(line);
        expect(text).not.toMatch(/insert|select|secret-span-name|\$1/i);

        await proxy.up();
        expect((await fetch(r.otlpUrl, { method: "POST", body: jsonExport(spans), headers: JSON_CT })).status).toBe(200);
      } finally {
        await r.stop();
        await database.close();
        await proxy.close();
        await base.close();
      }
    });
  }
});
