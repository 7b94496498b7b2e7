/**
 * Authentication, backpressure and durability without Redis, on every backend.
 */
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { createApiKey, ensureProject } from "@crux/db";
import { createBullmqQueue, createInProcessQueue, purgeQueuePrefix } from "@crux/queue";
import { createLogger } from "@crux/runtime";
import { recordSpans, toJson } from "@crux/testkit";
import { createWorker } from "@crux/worker";
import { describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux } from "./harness.ts";

const oneSpanTrace = (name = "root") => {
  const spans = recordSpans((t) => t.startSpan(name).end());
  return { body: toJson(spans), traceId: spans[0]!.spanContext().traceId };
};

describe.each(backends())("operations on $name", (backend) => {
  it("auth on: a bad or missing key gets 401 and stores nothing; a valid key stores into its project", async () => {
    const crux = await startTestCrux(backend, { CRUX_AUTH: "true" });
    try {
      await ensureProject(crux.database, "team-a", "Team A");
      const { key } = await createApiKey(crux.database, "team-a", "ci");
      const { body, traceId } = oneSpanTrace();
      const bad = await fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json", authorization: "Bearer nope" } });
      expect(bad.status).toBe(401);
      expect(((await bad.json()) as any).message).toMatch(/API key/);
      const missing = await fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json" } });
      expect(missing.status).toBe(401);
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`, { "x-api-key": key })).status).toBe(404);

      const ok = await fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json", "x-api-key": key } });
      expect(ok.status).toBe(200);
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`, { authorization: `Bearer ${key}` })).status).toBe(200);
      // The API needs a key too, and one project's key does not see another's data.
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`)).status).toBe(401);
      await ensureProject(crux.database, "team-b", "Team B");
      const other = await createApiKey(crux.database, "team-b", "ci");
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`, { "x-api-key": other.key })).status).toBe(404);
    } finally {
      await crux.stop();
    }
  });

  it("auth on: each key does what its scope allows (ingest sends, read reads, full does all) and is refused the rest with 403", async () => {
    const crux = await startTestCrux(backend, { CRUX_AUTH: "true" });
    try {
      await ensureProject(crux.database, "team-s", "Team S");
      const tracer = await createApiKey(crux.database, "team-s", "tracer", "ingest");
      const dashboard = await createApiKey(crux.database, "team-s", "dashboard", "read");
      const admin = await createApiKey(crux.database, "team-s", "admin", "full");
      const send = (key: string) => {
        const { body, traceId } = oneSpanTrace();
        return fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json", "x-api-key": key } }).then((r) => ({ r, traceId }));
      };
      const write = (key: string) =>
        fetch(`${crux.apiUrl}/api/v1/baselines`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: JSON.stringify({ serviceName: "svc", tokens: 1000 }),
        });

      const sent = await send(tracer.key);
      expect(sent.r.status).toBe(200);
      const tracerRead = await getJson(`${crux.apiUrl}/api/v1/traces/${sent.traceId}`, { authorization: `Bearer ${tracer.key}` });
      expect(tracerRead.status).toBe(403);
      expect(tracerRead.body).toEqual({ code: "forbidden", message: expect.stringMatching(/scope 'ingest'\) may only send traces, not read the API/) });

      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${sent.traceId}`, { authorization: `Bearer ${dashboard.key}` })).status).toBe(200);
      const readerSends = await send(dashboard.key);
      expect(readerSends.r.status).toBe(403);
      expect(((await readerSends.r.json()) as { message: string }).message).toMatch(/scope 'read'\) may only read the API, not send traces/);
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${readerSends.traceId}`, { authorization: `Bearer ${admin.key}` })).status).toBe(404);
      const readerWrites = await write(dashboard.key);
      expect(readerWrites.status).toBe(403);

      expect((await send(admin.key)).r.status).toBe(200);
      expect((await write(admin.key)).status).toBe(201);
    } finally {
      await crux.stop();
    }
  });

  it("auth on: an Authorization header without the Bearer scheme is told so, not that the key is missing", async () => {
    const crux = await startTestCrux(backend, { CRUX_AUTH: "true" });
    try {
      await ensureProject(crux.database, "team-h", "Team H");
      const { key } = await createApiKey(crux.database, "team-h", "ci");
      const bare = await getJson(`${crux.apiUrl}/api/v1/traces`, { authorization: key });
      expect(bare.status).toBe(401);
      expect(bare.body.message).toBe("the Authorization header has no scheme: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'");
      const { body } = oneSpanTrace();
      const res = await fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json", authorization: key } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { message: string }).message).toMatch(/^the Authorization header has no scheme/);
    } finally {
      await crux.stop();
    }
  });

  it("backlog above its ceiling: 503 with Retry-After, nothing stored", async () => {
    const crux = await startTestCrux(backend, {
      CRUX_MAX_QUEUE_DEPTH: "0",
      CRUX_SETTLE_DELAY_MS: "60000",
      CRUX_SETTLE_ROOT_DELAY_MS: "60000",
      CRUX_SWEEP_INTERVAL_MS: "3600000",
    });
    try {
      const first = oneSpanTrace("first");
      expect((await fetch(crux.otlpUrl, { method: "POST", body: first.body, headers: { "content-type": "application/json" } })).status).toBe(200);
      // The depth is re-read in the background at most once a second, never while a request waits:
      // the ceiling takes effect within a couple of readings.
      const refused = await eventually(
        async () => {
          const next = oneSpanTrace("next");
          const res = await fetch(crux.otlpUrl, { method: "POST", body: next.body, headers: { "content-type": "application/json" } });
          return res.status === 503 ? { res, traceId: next.traceId } : undefined;
        },
        5_000,
        250,
      );
      expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${refused.traceId}`)).status).toBe(404);
    } finally {
      await crux.stop();
    }
  });

  it("a Redis that accepts connections but stops answering does not hold up the exporter's answer", async () => {
    // A TCP server that never replies: the queue's commands hang until its 2 s command timeout.
    const sockets = new Set<Socket>();
    const blackHole = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
    const { port } = blackHole.address() as AddressInfo;
    const stuckQueue = createBullmqQueue({ redisUrl: `redis://127.0.0.1:${port}`, prefix: "stuck" });
    const crux = await startTestCrux(backend, { CRUX_SWEEP_INTERVAL_MS: "3600000" }, stuckQueue);
    try {
      const { body, traceId } = oneSpanTrace();
      const sentAt = performance.now();
      const res = await fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json" } });
      const answeredInMs = performance.now() - sentAt;
      expect(res.status).toBe(200);
      // The answer follows the commit; the settle enqueue runs after it and fails on its own time.
      expect(answeredInMs).toBeLessThan(1_500);
      const stored = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`);
      expect(stored.body.trace).toMatchObject({ spanCount: 1, settled: false });
    } finally {
      // Hang up first, so shutdown's queue close fails fast instead of waiting out its deadline.
      await new Promise((resolve) => {
        blackHole.close(resolve);
        for (const socket of sockets) socket.destroy();
      });
      await crux.stop();
    }
  });

  // BullMQ only: the in-process queue keeps nothing across a stop (the sweeper covers it there).
  if (backend.name === "postgres+redis")
    it("shutdown right after an answer still enqueues that export's settle job", async () => {
      const prefix = `test-${randomUUID()}`;
      const redisUrl = process.env.REDIS_URL!;
      const crux = await startTestCrux(
        backend,
        { CRUX_SETTLE_DELAY_MS: "60000", CRUX_SETTLE_ROOT_DELAY_MS: "60000", CRUX_SWEEP_INTERVAL_MS: "3600000" },
        createBullmqQueue({ redisUrl, prefix }),
      );
      const { body } = oneSpanTrace();
      const res = await fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(200);
      // Stop at once: the job must land on the normal shutdown path. (That close() waits for an enqueue
      // still in flight is pinned down by services/receiver/test/answer-before-enqueue.int.test.ts.)
      await crux.stop();
      const sameQueue = createBullmqQueue({ redisUrl, prefix });
      try {
        expect(await sameQueue.depth("trace.settle")).toBe(1);
      } finally {
        await sameQueue.close();
        await purgeQueuePrefix(redisUrl, prefix);
      }
    });

  it("queue down at ingest: export still succeeds, the sweeper settles the dirty trace later", async () => {
    // A BullMQ producer pointed at a closed port stands in for Redis being down.
    const deadQueue = createBullmqQueue({ redisUrl: "redis://127.0.0.1:1", prefix: "dead" });
    const crux = await startTestCrux(backend, { CRUX_SWEEP_INTERVAL_MS: "3600000" }, deadQueue);
    try {
      const { body, traceId } = oneSpanTrace();
      const res = await fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(200);
      const stored = await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`);
      expect(stored.status).toBe(200);
      expect(stored.body.trace.settled).toBe(false);

      // Redis is back: a worker with a working queue sweeps and settles.
      const liveQueue =
        backend.name === "embedded" ? createInProcessQueue() : createBullmqQueue({ redisUrl: process.env.REDIS_URL!, prefix: `sweep-${traceId}` });
      const worker = createWorker({
        database: crux.database,
        queue: liveQueue,
        config: { CRUX_WORKER_CONCURRENCY: 2, CRUX_SWEEP_INTERVAL_MS: 100, CRUX_SWEEP_QUIET_MS: 0 },
        log: createLogger({ level: "silent", name: "test" }),
      });
      worker.start();
      try {
        await eventually(async () => ((await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`)).body.trace.settled ? true : undefined));
      } finally {
        await worker.stop();
        await liveQueue.close();
        if (backend.name !== "embedded") await purgeQueuePrefix(process.env.REDIS_URL!, `sweep-${traceId}`);
      }
    } finally {
      await crux.stop();
    }
  });

  it("late spans re-open a settled trace", async () => {
    const crux = await startTestCrux(backend);
    try {
      let parentCtx: { traceId: string; spanId: string } | undefined;
      const first = recordSpans((t) => {
        const root = t.startSpan("root");
        parentCtx = root.spanContext();
        root.end();
      });
      const post = (body: string) => fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json" } });
      expect((await post(toJson(first))).status).toBe(200);
      const url = `${crux.apiUrl}/api/v1/traces/${parentCtx!.traceId}`;
      await eventually(async () => ((await getJson(url)).body.trace?.settled ? true : undefined));

      const late = JSON.parse(toJson(first));
      const span = late.resourceSpans[0].scopeSpans[0].spans[0];
      span.parentSpanId = span.spanId;
      span.spanId = "00000000000000aa";
      span.name = "late child";
      expect((await post(JSON.stringify(late))).status).toBe(200);
      const reopened = await getJson(url);
      expect(reopened.body.trace.spanCount).toBe(2);
      const settled = await eventually(async () => {
        const r = await getJson(url);
        return r.body.trace.settled ? r.body : undefined;
      });
      expect(settled.roots[0].children.map((c: any) => c.name)).toEqual(["late child"]);
    } finally {
      await crux.stop();
    }
  });

  it("a trace whose root arrived with its children settles after the short root delay, not the quiet period", async () => {
    const crux = await startTestCrux(backend, { CRUX_SETTLE_DELAY_MS: "60000", CRUX_SETTLE_ROOT_DELAY_MS: "100", CRUX_SWEEP_INTERVAL_MS: "3600000" });
    try {
      const complete = recordSpans((t) => {
        const root = t.startSpan("root");
        t.startSpan("child", {}, trace.setSpan(ROOT_CONTEXT, root)).end();
        root.end();
      });
      const partial = JSON.parse(toJson(recordSpans((t) => t.startSpan("orphan-only").end())));
      partial.resourceSpans[0].scopeSpans[0].spans[0].parentSpanId = "00000000000000ff";
      const post = (body: string) => fetch(crux.otlpUrl, { method: "POST", body, headers: { "content-type": "application/json" } });
      expect((await post(toJson(complete))).status).toBe(200);
      expect((await post(JSON.stringify(partial))).status).toBe(200);
      const url = (id: string) => `${crux.apiUrl}/api/v1/traces/${id}`;
      await eventually(async () => ((await getJson(url(complete[0]!.spanContext().traceId))).body.trace.settled ? true : undefined), 5_000);
      const partialId = partial.resourceSpans[0].scopeSpans[0].spans[0].traceId.toLowerCase();
      expect((await getJson(url(partialId))).body.trace.settled).toBe(false);
    } finally {
      await crux.stop();
    }
  });
});
