/**
 * The answer follows the commit; the settle enqueue follows the answer and
 * close() waits for it. Run against a real BullMQ producer whose Redis
 * accepts the connection and never replies (a stuck Redis), on a real database.
 */
import { createServer, type AddressInfo, type Socket } from "node:net";
import { loadConfig } from "@crux/config";
import { ensureProject } from "@crux/db";
import { createBullmqQueue } from "@crux/queue";
import { recordSpans, testDatabases, toJson } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReceiver, receiverConfigSchema } from "../src/index.ts";

const silent = { info() {}, warn() {}, error() {} };

describe("settle enqueue after the answer, on a stuck Redis", () => {
  const sockets = new Set<Socket>();
  const stuckRedis = createServer((socket) => sockets.add(socket));
  let redisUrl = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => stuckRedis.listen(0, "127.0.0.1", resolve));
    redisUrl = `redis://127.0.0.1:${(stuckRedis.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => {
      stuckRedis.close(resolve);
      for (const socket of sockets) socket.destroy();
    });
  });

  it("answers 200 while the enqueue is pending, and close() returns only once that enqueue is over", async () => {
    const database = await testDatabases()[0]!.create();
    const queue = createBullmqQueue({ redisUrl, prefix: "stuck", commandTimeoutMs: 1_500 });
    const config = loadConfig(receiverConfigSchema, { CRUX_HOST: "127.0.0.1", CRUX_OTLP_HTTP_PORT: "0", CRUX_OTLP_GRPC_PORT: "0" });
    await ensureProject(database, config.CRUX_DEFAULT_PROJECT, config.CRUX_DEFAULT_PROJECT);
    const receiver = createReceiver({ database, queue, config, authRequired: false, log: silent });
    try {
      const { httpPort } = await receiver.listen();
      const body = toJson(recordSpans((t) => t.startSpan("root").end()));
      const res = await fetch(`http://127.0.0.1:${httpPort}/v1/traces`, { method: "POST", body, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(200);
      // Answered, yet the request still holds its in-flight slot: its enqueue waits on Redis.
      expect(receiver.pipeline.inFlight()).toBe(1);

      await receiver.close();

      expect(receiver.pipeline.inFlight()).toBe(0);
    } finally {
      await queue.close(500);
      await database.close();
    }
  });
});
