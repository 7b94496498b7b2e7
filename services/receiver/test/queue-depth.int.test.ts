/**
 * The backlog ceiling reads the trace pipeline's depth (settle + score jobs) on a timer of its own:
 * once a backlog clears, the next request passes, however long it came after
 * the last one (a reading refreshed only by requests answered the first
 * requests after a quiet spell from a stale, high reading). Real queues.
 */
import { describe, expect, it } from "vitest";
import { backends, eventually, jsonExport, jsonSpan, startReceiver } from "./support.ts";

const traceIdOf = (i: number) => (0x1000_0000_0000_0000_0000_0000_0000_0000n + BigInt(i)).toString(16);

describe.each(backends())("queue depth reading on $name", (backend) => {
  it("refreshes without requests: the first request after the backlog cleared is accepted", async () => {
    const { queue, purge } = backend.createQueue();
    // Settle jobs of accepted exports are due at once, so the worker below clears them too.
    const r = await startReceiver(
      backend,
      { CRUX_MAX_QUEUE_DEPTH: "5", CRUX_SETTLE_DELAY_MS: "0", CRUX_SETTLE_ROOT_DELAY_MS: "0" },
      { queue, depthRefreshMs: 50 },
    );
    let n = 0;
    const post = () =>
      fetch(r.otlpUrl, { method: "POST", body: jsonExport([jsonSpan(n++, { traceId: traceIdOf(n) })]), headers: { "content-type": "application/json" } });
    try {
      const backlog = Array.from({ length: 20 }, (_, i) => ({ projectId: "default", traceId: traceIdOf(1_000 + i) }));
      await queue.enqueueMany("trace.settle", backlog, { delayMs: 0 });

      const refused = await eventually(async () => {
        const res = await post();
        return res.status === 503 ? res : undefined;
      }, 10_000);
      expect(refused.headers.get("retry-after")).toBe("5");

      // A worker clears the backlog; then no request for a while.
      queue.start({ "trace.settle": async () => {} }, { concurrency: { "trace.settle": 8 } });
      await eventually(async () => ((await queue.depth("trace.settle")) === 0 ? true : undefined), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 300));

      expect((await post()).status).toBe(200);
      expect(r.receiver.pipeline.queueDepth()).toBeLessThanOrEqual(1);
    } finally {
      await r.stop();
      await queue.close(2_000);
      await purge();
    }
  });

  it("counts a score backlog too: a worker behind on scoring sheds ingest like one behind on settling", async () => {
    const { queue, purge } = backend.createQueue();
    const r = await startReceiver(backend, { CRUX_MAX_QUEUE_DEPTH: "5" }, { queue, depthRefreshMs: 50 });
    try {
      const backlog = Array.from({ length: 20 }, (_, i) => ({ projectId: "default", traceId: traceIdOf(2_000 + i) }));
      await queue.enqueueMany("trace.score", backlog, { delayMs: 60_000 });
      const refused = await eventually(async () => {
        const res = await fetch(r.otlpUrl, {
          method: "POST",
          body: jsonExport([jsonSpan(1, { traceId: traceIdOf(1) })]),
          headers: { "content-type": "application/json" },
        });
        return res.status === 503 ? res : undefined;
      }, 10_000);
      expect(refused.status).toBe(503);
      expect(r.receiver.pipeline.queueDepth()).toBeGreaterThanOrEqual(20);
    } finally {
      await r.stop();
      await queue.close(0);
      await purge();
    }
  });

  it("close() stops the readings", async () => {
    const { queue, purge } = backend.createQueue();
    const r = await startReceiver(backend, {}, { queue, depthRefreshMs: 20 });
    let reads = 0;
    const depth = queue.depth.bind(queue);
    queue.depth = async (name) => {
      reads++;
      return depth(name);
    };
    try {
      await eventually(async () => (reads >= 2 ? true : undefined));
      await r.stop();
      const after = reads;
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(reads - after).toBeLessThanOrEqual(1); // at most one reading already under way
    } finally {
      await r.stop();
      await queue.close(2_000);
      await purge();
    }
  });
});
