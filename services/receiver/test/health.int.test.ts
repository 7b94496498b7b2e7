/**
 * /livez never depends on Postgres or Redis; /readyz (and /healthz) is 200
 * only while both answer and intake is open, 503 naming what failed and why.
 * While intake is closed (start-up), exports get a retryable 503 on both
 * transports, before their body is read.
 */
import { createServer, type AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { createBullmqQueue } from "@crux/queue";
import { describe, expect, it } from "vitest";
import { EXPORT_METHOD_PATH } from "../src/grpc.ts";
import { backends, jsonExport, jsonSpan, protoExport, startReceiver } from "./support.ts";

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe.each(backends())("health endpoints on $name", (backend) => {
  it("ready while the database and queue answer; live always", async () => {
    const r = await startReceiver(backend);
    try {
      expect(await (await fetch(`${r.baseUrl}/livez`)).json()).toEqual({ status: "live" });
      for (const path of ["/readyz", "/healthz"]) {
        const res = await fetch(`${r.baseUrl}${path}`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as any;
        expect(body.status).toBe("ready");
        expect(Object.keys(body.checks).sort()).toEqual(["database", "intake", "queue"]);
      }
    } finally {
      await r.stop();
    }
  });

  it("a queue that does not answer: /readyz 503 naming it, /livez still 200", async () => {
    const queue = createBullmqQueue({ redisUrl: `redis://127.0.0.1:${await closedPort()}`, prefix: "unreachable", commandTimeoutMs: 300 });
    const r = await startReceiver(backend, {}, { queue });
    try {
      const res = await fetch(`${r.baseUrl}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as any;
      expect(body.status).toBe("not_ready");
      expect(body.checks.queue.ok).toBe(false);
      expect(body.checks.queue.error.length).toBeGreaterThan(0);
      expect(body.checks.database.ok).toBe(true);
      expect((await fetch(`${r.baseUrl}/livez`)).status).toBe(200);
    } finally {
      await r.stop();
      await queue.close(200);
    }
  });

  it("intake closed: HTTP 503 + Retry-After and gRPC UNAVAILABLE, not ready; open() lets exports in", async () => {
    const r = await startReceiver(backend, {}, { closedUntilReady: "waiting for the database" });
    const client = new grpc.Client(r.grpcAddress, grpc.credentials.createInsecure());
    const viaGrpc = () =>
      new Promise<grpc.ServiceError | null>((resolve) =>
        client.makeUnaryRequest(
          EXPORT_METHOD_PATH,
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from(protoExport([jsonSpan(2)])),
          (err) => resolve(err),
        ),
      );
    const viaHttp = () => fetch(r.otlpUrl, { method: "POST", body: jsonExport([jsonSpan(1)]), headers: { "content-type": "application/json" } });
    try {
      const refused = await viaHttp();
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(((await refused.json()) as any).message).toBe("the receiver is starting (waiting for the database); retry later");
      const grpcRefused = await viaGrpc();
      expect(grpcRefused?.code).toBe(grpc.status.UNAVAILABLE);
      expect(grpcRefused?.metadata.get("retry-after")).toEqual(["5"]);
      const ready = await fetch(`${r.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as any).checks.intake).toMatchObject({ ok: false, error: "waiting for the database" });

      r.receiver.intake.open();
      expect((await viaHttp()).status).toBe(200);
      expect(await viaGrpc()).toBeNull();
      expect((await fetch(`${r.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      client.close();
      await r.stop();
    }
  });
});
