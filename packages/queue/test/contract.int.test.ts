/**
 * One contract, two adapters: every behaviour the receiver and worker rely on
 * is asserted identically against the in-process queue and BullMQ on a real
 * Redis (unique key prefix per test, keys deleted afterwards).
 */
import { randomUUID } from "node:crypto";
import { OverloadedError, PermanentError } from "@crux/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  createBullmqQueue,
  createInProcessQueue,
  JobDeferral,
  purgeQueuePrefix,
  QueueClosedError,
  type JobDefaultsOverrides,
  type JobQueue,
  type Payload,
} from "../src/index.ts";
import { deferred, redisUnavailableReason, sleep, testRedisUrl, waitFor } from "./redis-fixture.ts";

const redisSkipReason = await redisUnavailableReason(testRedisUrl);
if (redisSkipReason) console.warn(`skipping the bullmq contract case: ${redisSkipReason}`);

// Short delays keep the suite fast; BullMQ promotes delayed jobs up to ~100 ms late, so
// assertions bound times from below (never early) and allow seconds before giving up.
const fastRetries: JobDefaultsOverrides = { "trace.settle": { attempts: 3, backoff: { type: "exponential", delay: 50 } } };

interface AdapterCase {
  title: string;
  skip: boolean;
  create(jobDefaults: JobDefaultsOverrides): { queue: JobQueue; cleanup(): Promise<unknown> };
}

const adapters: AdapterCase[] = [
  {
    title: "in-process",
    skip: false,
    create: (jobDefaults) => ({ queue: createInProcessQueue({ jobDefaults }), cleanup: async () => {} }),
  },
  {
    title: redisSkipReason ? `bullmq (skipped: ${redisSkipReason})` : `bullmq on ${testRedisUrl}`,
    skip: redisSkipReason !== null,
    create: (jobDefaults) => {
      const prefix = `test-${randomUUID()}`;
      const queue = createBullmqQueue({ redisUrl: testRedisUrl, prefix, jobDefaults });
      return { queue, cleanup: () => purgeQueuePrefix(testRedisUrl, prefix) };
    },
  },
];

const traceA = "a".repeat(32);
const traceB = "b".repeat(32);
const settle = (projectId: string, traceId = traceA): Payload<"trace.settle"> => ({ projectId, traceId });

interface Run {
  payload: Payload<"trace.settle">;
  startedAt: number;
}

describe.each(adapters)("JobQueue contract: $title", (adapter) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(jobDefaults: JobDefaultsOverrides = fastRetries) {
    const { queue, cleanup } = adapter.create(jobDefaults);
    cleanups.push(async () => {
      await queue.close(1_000);
      await cleanup();
    });
    // Warm up: BullMQ measures a delay from the enqueue call, so a first call that
    // also has to connect would eat into the 50–150 ms delays these tests time.
    await queue.ping();
    await queue.depth("trace.settle");
    const runs: Run[] = [];
    /** Registers a handler that records each run, then runs `body`. */
    const processWith = (concurrency: number, body: (p: Payload<"trace.settle">, attempt: number) => Promise<void> = async () => {}) =>
      queue.process(
        "trace.settle",
        async (payload) => {
          runs.push({ payload, startedAt: Date.now() });
          await body(payload, runs.filter((r) => r.payload.traceId === payload.traceId).length);
        },
        { concurrency },
      );
    return { queue, runs, processWith };
  }

  it.skipIf(adapter.skip)("rejects an invalid payload at enqueue with a PermanentError naming the field", async () => {
    const { queue } = await setup();
    const bad = { projectId: "p", traceId: "NOT-HEX" };
    const error = await queue.enqueue("trace.settle", bad, { key: "k", delayMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as PermanentError).code).toBe("invalid_payload");
    expect((error as Error).message).toMatch(/traceId/);
    // enqueueMany validates the whole batch before enqueuing any of it
    const batch = [
      { payload: settle("p"), key: "ok" },
      { payload: bad, key: "bad" },
    ];
    await expect(queue.enqueueMany("trace.settle", batch, { delayMs: 50 })).rejects.toBeInstanceOf(PermanentError);
    expect(await queue.depth("trace.settle")).toBe(0);
  });

  it.skipIf(adapter.skip)("debounces: three enqueues of one key run once, after the last enqueue + delay, with the last payload", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(4);
    const delayMs = 300; // wide margin: each re-enqueue must land before the previous one is due
    await queue.enqueue("trace.settle", settle("p1"), { key: traceA, delayMs });
    await queue.enqueue("trace.settle", settle("other", traceB), { key: traceB, delayMs });
    await sleep(50);
    await queue.enqueue("trace.settle", settle("p2"), { key: traceA, delayMs });
    await sleep(50);
    const lastEnqueueAt = Date.now();
    await queue.enqueue("trace.settle", settle("p3"), { key: traceA, delayMs });
    await waitFor(() => runs.length === 2, "one run per key");
    await sleep(200); // nothing else may arrive
    const runsOfA = runs.filter((r) => r.payload.traceId === traceA);
    const timeline = runs.map((r) => `${r.payload.projectId}@${r.startedAt - lastEnqueueAt}ms`).join(" ");
    expect(
      runsOfA.map((r) => r.payload.projectId),
      `runs relative to the last enqueue: ${timeline}`,
    ).toEqual(["p3"]);
    expect(runsOfA[0]!.startedAt - lastEnqueueAt).toBeGreaterThanOrEqual(delayMs - 5);
    expect(runs.filter((r) => r.payload.traceId === traceB)).toHaveLength(1);
  });

  it.skipIf(adapter.skip)("enqueueMany enqueues a batch with the same per-key debounce", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(4);
    const traceC = "c".repeat(32);
    await queue.enqueueMany(
      "trace.settle",
      [traceA, traceB, traceC, traceA].map((traceId) => ({ payload: settle("p", traceId), key: traceId })),
      { delayMs: 50 },
    );
    expect(await queue.depth("trace.settle")).toBe(3);
    await waitFor(() => runs.length === 3, "three runs");
    await sleep(200);
    expect(runs.map((r) => r.payload.traceId).sort()).toEqual([traceA, traceB, traceC]);
  });

  it.skipIf(adapter.skip)("a re-enqueue during a run schedules exactly one more run after it, never in parallel", async () => {
    const { queue, runs, processWith } = await setup();
    const firstRun = deferred();
    let running = 0;
    let maxRunning = 0;
    processWith(4, async (_payload, attempt) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      if (attempt === 1) await firstRun.promise;
      running--;
    });
    await queue.enqueue("trace.settle", settle("p1"), { key: traceA, delayMs: 50 });
    await waitFor(() => runs.length === 1, "the first run");
    await queue.enqueue("trace.settle", settle("p2"), { key: traceA, delayMs: 100 });
    await queue.enqueue("trace.settle", settle("p3"), { key: traceA, delayMs: 100 });
    await sleep(250);
    expect(runs).toHaveLength(1); // the running job is not interrupted or doubled
    const finishedAt = Date.now();
    firstRun.resolve();
    await waitFor(() => runs.length === 2, "the follow-up run");
    await sleep(250);
    expect(runs.map((r) => r.payload.projectId)).toEqual(["p1", "p3"]);
    expect(runs[1]!.startedAt - finishedAt).toBeGreaterThanOrEqual(95);
    expect(maxRunning).toBe(1);
  });

  it.skipIf(adapter.skip)("a job overdue while every slot is busy is still replaced by a re-enqueue", async () => {
    const { queue, runs, processWith } = await setup();
    const busy = deferred();
    processWith(1, async (payload) => {
      if (payload.traceId === traceA) await busy.promise;
    });
    try {
      await queue.enqueue("trace.settle", settle("busy"), { key: traceA, delayMs: 10 });
      await waitFor(() => runs.length === 1, "the blocking run");
      await queue.enqueue("trace.settle", settle("old", traceB), { key: traceB, delayMs: 10 });
      await sleep(150); // traceB is overdue, waiting for the only slot
      await queue.enqueue("trace.settle", settle("new", traceB), { key: traceB, delayMs: 10 });
      expect(await queue.depth("trace.settle")).toBe(2);
    } finally {
      busy.resolve();
    }
    await waitFor(() => runs.length === 2, "traceB's run");
    await sleep(200);
    expect(runs.map((r) => r.payload.projectId)).toEqual(["busy", "new"]);
  });

  it.skipIf(adapter.skip)("retries a transient error with exponential backoff, then succeeds", async () => {
    const { queue, runs, processWith } = await setup({ "trace.settle": { attempts: 4, backoff: { type: "exponential", delay: 50 } } });
    processWith(1, async (_payload, attempt) => {
      if (attempt < 3) throw new Error(`transient failure ${attempt}`);
    });
    await queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 });
    await waitFor(() => runs.length === 3, "three attempts");
    await sleep(300);
    expect(runs).toHaveLength(3); // success on the third attempt ends it
    const [first, second, third] = runs.map((r) => r.startedAt) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(45); // 50 ms
    expect(third - second).toBeGreaterThanOrEqual(95); // 100 ms
    expect(await queue.depth("trace.settle")).toBe(0);
  });

  it.skipIf(adapter.skip)("tells the handler which attempt it is in, of how many", async () => {
    const { queue } = await setup(); // 3 attempts
    const seen: string[] = [];
    queue.process(
      "trace.settle",
      async (_payload, run) => {
        seen.push(`${run.attempt}/${run.attempts}`);
        if (run.attempt < 3) throw new Error("transient");
      },
      { concurrency: 1 },
    );
    await queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 });
    await waitFor(() => seen.length === 3, "three attempts");
    expect(seen).toEqual(["1/3", "2/3", "3/3"]);
  });

  it.skipIf(adapter.skip)("a JobDeferral puts the job back after its delay without using up an attempt", async () => {
    const { queue } = await setup(); // 3 attempts
    const runs: { attempt: number; at: number }[] = [];
    queue.process(
      "trace.settle",
      async (_payload, run) => {
        runs.push({ attempt: run.attempt, at: Date.now() });
        if (runs.length <= 4) throw new JobDeferral(80, "busy");
      },
      { concurrency: 1 },
    );
    await queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 });
    await waitFor(() => runs.length === 5, "four deferrals and a run", 10_000);
    await sleep(300);
    // More deferrals than attempts, every one still attempt 1; each came back no earlier than its delay.
    expect(runs.map((r) => r.attempt)).toEqual([1, 1, 1, 1, 1]);
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.at - runs[i - 1]!.at).toBeGreaterThanOrEqual(75);
    expect(await queue.depth("trace.settle")).toBe(0);
  });

  it.skipIf(adapter.skip)("stops after the configured attempts when the error persists", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(1, async () => {
      throw new Error("still down");
    });
    await queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 });
    await waitFor(() => runs.length === 3, "three attempts");
    await sleep(400); // a fourth would start 200 ms after the third
    expect(runs).toHaveLength(3);
  });

  it.skipIf(adapter.skip)("a PermanentError fails the job without retry", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(1, async () => {
      throw new PermanentError("bad_trace", "trace cannot be settled");
    });
    await queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 });
    await waitFor(() => runs.length === 1, "the only attempt");
    await sleep(300); // a retry would start after 50 ms
    expect(runs).toHaveLength(1);
    expect(await queue.depth("trace.settle")).toBe(0);
  });

  it.skipIf(adapter.skip)("depth counts pending jobs once per key, and drops to zero when they finish", async () => {
    const { queue, runs, processWith } = await setup();
    for (const key of ["k1", "k2", "k3", "k1"]) {
      await queue.enqueue("trace.settle", settle(key), { key, delayMs: 100 });
    }
    expect(await queue.depth("trace.settle")).toBe(3);
    processWith(3);
    await waitFor(() => runs.length === 3, "three runs");
    const deadline = Date.now() + 2_000;
    while ((await queue.depth("trace.settle")) > 0 && Date.now() < deadline) await sleep(10);
    expect(await queue.depth("trace.settle")).toBe(0);
  });

  it.skipIf(adapter.skip)("never runs more handlers at once than the concurrency", async () => {
    const { queue, runs, processWith } = await setup();
    const release = deferred();
    let running = 0;
    let maxRunning = 0;
    processWith(2, async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await release.promise;
      running--;
    });
    const keys = ["c".repeat(32), "d".repeat(32), "e".repeat(32), "f".repeat(32)];
    await queue.enqueueMany(
      "trace.settle",
      keys.map((k) => ({ payload: settle("p", k), key: k })),
      { delayMs: 20 },
    );
    await waitFor(() => runs.length === 2, "two runs");
    await sleep(150);
    expect(runs).toHaveLength(2);
    release.resolve();
    await waitFor(() => runs.length === 4, "all four runs");
    expect(maxRunning).toBe(2);
  });

  it.skipIf(adapter.skip)("close() waits for an in-flight handler, is safe to call twice, and refuses new work", async () => {
    const { queue, runs, processWith } = await setup();
    let finished = false;
    processWith(1, async () => {
      await sleep(300);
      finished = true;
    });
    await queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 });
    await waitFor(() => runs.length === 1, "the run to start");
    const closes = [queue.close(5_000), queue.close(5_000)];
    await Promise.all(closes);
    expect(finished).toBe(true);
    await queue.close();
    await expect(queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 })).rejects.toBeInstanceOf(QueueClosedError);
  });

  it.skipIf(adapter.skip)("close() gives up on a stuck handler after its timeout", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(1, () => new Promise<void>(() => {})); // never settles
    await queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 20 });
    await waitFor(() => runs.length === 1, "the run to start");
    const startedAt = Date.now();
    await queue.close(200);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
    expect(Date.now() - startedAt).toBeLessThan(2_500);
  });
});

describe("bullmq adapter with Redis unreachable", () => {
  it("enqueue, enqueueMany, depth and ping reject with OverloadedError within ~2 s instead of hanging; close() returns", async () => {
    const queue = createBullmqQueue({ redisUrl: "redis://127.0.0.1:1", prefix: `test-${randomUUID()}` });
    try {
      for (const call of [
        () => queue.enqueue("trace.settle", settle("p"), { key: traceA, delayMs: 50 }),
        () => queue.enqueueMany("trace.settle", [{ payload: settle("p"), key: traceA }], { delayMs: 50 }),
        () => queue.depth("trace.settle"),
        () => queue.ping(),
      ]) {
        const startedAt = Date.now();
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(OverloadedError);
        expect(Date.now() - startedAt).toBeLessThan(2_500);
      }
    } finally {
      const startedAt = Date.now();
      await queue.close(1_000);
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    }
  });
});
