/**
 * One contract, two adapters: every behaviour the services rely on is
 * asserted identically against the in-process queue and BullMQ on a real
 * Redis (unique key prefix per test, keys deleted afterwards). The tests
 * declare their own registry, with one queue of each mode.
 */
import { randomUUID } from "node:crypto";
import { OverloadedError, PermanentError } from "@crux/core";
import type { Logger } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createBullmqQueue,
  createInProcessQueue,
  defineQueue,
  JobDeferral,
  purgeQueuePrefix,
  QueueClosedError,
  queueRegistry,
  type JobDefaults,
  type JobDefaultsOverrides,
  type JobOutcomeEvent,
  type JobQueue,
  type Payload,
} from "../src/index.ts";
import { recordingLog } from "./recording-log.ts";
import { deferred, redisUnavailableReason, sleep, testRedisUrl, waitFor } from "./redis-fixture.ts";

const redisSkipReason = await redisUnavailableReason(testRedisUrl);
if (redisSkipReason) console.warn(`skipping the bullmq contract case: ${redisSkipReason}`);

// Short delays keep the suite fast; BullMQ promotes delayed jobs up to ~100 ms late, so
// assertions bound times from below (never early) and allow seconds before giving up.
const fast: JobDefaults = { attempts: 3, backoff: { type: "exponential", delay: 50 }, removeOnComplete: 100, removeOnFail: 100 };
const item = z.object({ group: z.string().min(1), id: z.string().min(1), note: z.string().optional() });

const testRegistry = {
  /** The app's settle queue as it is declared (key `<project>:<trace>`). */
  "trace.settle": queueRegistry["trace.settle"],
  /** Debounced on the trace id alone, so a test can replace one job's payload with another. */
  "test.debounced": defineQueue({ mode: "debounced", payload: queueRegistry["trace.settle"].payload, key: (p) => p.traceId, defaults: fast }),
  "test.unique": defineQueue({ mode: "unique", payload: item, key: (p) => `${p.group}:${p.id}`, defaults: fast }),
  "test.limited": defineQueue({ mode: "rate-limited", payload: item, key: (p) => p.group, rateLimit: { max: 1, windowMs: 400 }, defaults: fast }),
  "test.tick": defineQueue({
    mode: "scheduled",
    payload: z.object({ source: z.literal("schedule") }),
    everyMs: 400,
    data: { source: "schedule" },
    defaults: fast,
  }),
} as const;
type TestRegistry = typeof testRegistry;
type TestQueue = JobQueue<TestRegistry>;

interface AdapterCase {
  title: string;
  skip: boolean;
  /** A queue, and `peer()`: another worker process on the same backend (BullMQ: same prefix), or null where there is none. */
  create(opts: { jobDefaults: JobDefaultsOverrides<TestRegistry>; log?: Logger }): {
    queue: TestQueue;
    peer: (() => TestQueue) | null;
    cleanup(): Promise<unknown>;
  };
}

const adapters: AdapterCase[] = [
  {
    title: "in-process",
    skip: false,
    create: ({ jobDefaults, log }) => ({
      queue: createInProcessQueue({ registry: testRegistry, jobDefaults, ...(log ? { log } : {}) }),
      peer: null,
      cleanup: async () => {},
    }),
  },
  {
    title: redisSkipReason ? `bullmq (skipped: ${redisSkipReason})` : `bullmq on ${testRedisUrl}`,
    skip: redisSkipReason !== null,
    create: ({ jobDefaults, log }) => {
      const prefix = `test-${randomUUID()}`;
      const make = () => createBullmqQueue({ redisUrl: testRedisUrl, prefix, registry: testRegistry, jobDefaults, ...(log ? { log } : {}) });
      return { queue: make(), peer: make, cleanup: () => purgeQueuePrefix(testRedisUrl, prefix) };
    },
  },
];

const traceA = "a".repeat(32);
const traceB = "b".repeat(32);
const settle = (projectId: string, traceId = traceA): Payload<"test.debounced", TestRegistry> => ({ projectId, traceId });

interface Run {
  payload: Payload<"test.debounced", TestRegistry>;
  startedAt: number;
}

describe.each(adapters)("JobQueue contract: $title", (adapter) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(opts: { jobDefaults?: JobDefaultsOverrides<TestRegistry>; log?: Logger } = {}) {
    const { queue, peer, cleanup } = adapter.create({ jobDefaults: opts.jobDefaults ?? {}, ...(opts.log ? { log: opts.log } : {}) });
    const peers: TestQueue[] = [];
    cleanups.push(async () => {
      await Promise.all([queue, ...peers].map((q) => q.close(1_000)));
      await cleanup();
    });
    // Warm up: BullMQ measures a delay from the enqueue call, so a first call that
    // also has to connect would eat into the 50–150 ms delays these tests time.
    await queue.ping();
    await queue.depth("test.debounced");
    const runs: Run[] = [];
    /** Registers a handler that records each run, then runs `body`. */
    const processWith = (concurrency: number, body: (p: Payload<"test.debounced", TestRegistry>, attempt: number) => Promise<void> = async () => {}) =>
      queue.start(
        {
          "test.debounced": async (payload) => {
            runs.push({ payload, startedAt: Date.now() });
            await body(payload, runs.filter((r) => r.payload.traceId === payload.traceId).length);
          },
        },
        { concurrency: { "test.debounced": concurrency } },
      );
    /**
     * "Two workers": with BullMQ two adapter instances on one prefix (two
     * processes, each one slot); in-process there is one process only, so it
     * is one instance with two slots.
     */
    const startTwoWorkers = (handlers: Parameters<TestQueue["start"]>[0]) => {
      const names = Object.keys(handlers) as (keyof TestRegistry)[];
      if (!peer) return queue.start(handlers, { concurrency: Object.fromEntries(names.map((n) => [n, 2])) });
      const second = peer();
      peers.push(second);
      queue.start(handlers);
      second.start(handlers);
    };
    /** Another process on the same backend (BullMQ), or the queue itself where there is only one (in-process). */
    const secondProcess = (): TestQueue => {
      if (!peer) return queue;
      const second = peer();
      peers.push(second);
      return second;
    };
    return { queue, runs, processWith, startTwoWorkers, secondProcess };
  }

  it.skipIf(adapter.skip)("rejects an invalid payload at enqueue with a PermanentError naming the field", async () => {
    const { queue } = await setup();
    const bad = { projectId: "p", traceId: "NOT-HEX" };
    const error = await queue.enqueue("test.debounced", bad, { delayMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as PermanentError).code).toBe("invalid_payload");
    expect((error as Error).message).toMatch(/traceId/);
    // enqueueMany validates the whole batch before enqueuing any of it
    const batch = [settle("p"), bad];
    await expect(queue.enqueueMany("test.debounced", batch, { delayMs: 50 })).rejects.toBeInstanceOf(PermanentError);
    expect(await queue.depth("test.debounced")).toBe(0);
  });

  it.skipIf(adapter.skip)("debounces: three enqueues of one key run once, after the last enqueue + delay, with the last payload", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(4);
    const delayMs = 300; // wide margin: each re-enqueue must land before the previous one is due
    await queue.enqueue("test.debounced", settle("p1"), { delayMs });
    await queue.enqueue("test.debounced", settle("other", traceB), { delayMs });
    await sleep(50);
    await queue.enqueue("test.debounced", settle("p2"), { delayMs });
    await sleep(50);
    const lastEnqueueAt = Date.now();
    await queue.enqueue("test.debounced", settle("p3"), { delayMs });
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
      "test.debounced",
      [traceA, traceB, traceC, traceA].map((traceId) => settle("p", traceId)),
      { delayMs: 50 },
    );
    expect(await queue.depth("test.debounced")).toBe(3);
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
    await queue.enqueue("test.debounced", settle("p1"), { delayMs: 50 });
    await waitFor(() => runs.length === 1, "the first run");
    await queue.enqueue("test.debounced", settle("p2"), { delayMs: 100 });
    await queue.enqueue("test.debounced", settle("p3"), { delayMs: 100 });
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
      await queue.enqueue("test.debounced", settle("busy"), { delayMs: 10 });
      await waitFor(() => runs.length === 1, "the blocking run");
      await queue.enqueue("test.debounced", settle("old", traceB), { delayMs: 10 });
      await sleep(150); // traceB is overdue, waiting for the only slot
      await queue.enqueue("test.debounced", settle("new", traceB), { delayMs: 10 });
      expect(await queue.depth("test.debounced")).toBe(2);
    } finally {
      busy.resolve();
    }
    await waitFor(() => runs.length === 2, "traceB's run");
    await sleep(200);
    expect(runs.map((r) => r.payload.projectId)).toEqual(["busy", "new"]);
  });

  it.skipIf(adapter.skip)("retries a transient error with exponential backoff, then succeeds", async () => {
    const { queue, runs, processWith } = await setup({ jobDefaults: { "test.debounced": { attempts: 4, backoff: { type: "exponential", delay: 50 } } } });
    processWith(1, async (_payload, attempt) => {
      if (attempt < 3) throw new Error(`transient failure ${attempt}`);
    });
    await queue.enqueue("test.debounced", settle("p"), { delayMs: 20 });
    await waitFor(() => runs.length === 3, "three attempts");
    await sleep(300);
    expect(runs).toHaveLength(3); // success on the third attempt ends it
    const [first, second, third] = runs.map((r) => r.startedAt) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(45); // 50 ms
    expect(third - second).toBeGreaterThanOrEqual(95); // 100 ms
    expect(await queue.depth("test.debounced")).toBe(0);
  });

  it.skipIf(adapter.skip)("tells the handler which attempt it is in, of how many", async () => {
    const { queue } = await setup(); // 3 attempts
    const seen: string[] = [];
    queue.start({
      "test.debounced": async (_payload, run) => {
        seen.push(`${run.attempt}/${run.attempts}`);
        if (run.attempt < 3) throw new Error("transient");
      },
    });
    await queue.enqueue("test.debounced", settle("p"), { delayMs: 20 });
    await waitFor(() => seen.length === 3, "three attempts");
    expect(seen).toEqual(["1/3", "2/3", "3/3"]);
  });

  it.skipIf(adapter.skip)("a JobDeferral puts the job back after its delay without using up an attempt", async () => {
    const { queue } = await setup(); // 3 attempts
    const runs: { attempt: number; at: number }[] = [];
    queue.start({
      "test.debounced": async (_payload, run) => {
        runs.push({ attempt: run.attempt, at: Date.now() });
        if (runs.length <= 4) throw new JobDeferral(80, "busy");
      },
    });
    await queue.enqueue("test.debounced", settle("p"), { delayMs: 20 });
    await waitFor(() => runs.length === 5, "four deferrals and a run", 10_000);
    await sleep(300);
    // More deferrals than attempts, every one still attempt 1; each came back no earlier than its delay.
    expect(runs.map((r) => r.attempt)).toEqual([1, 1, 1, 1, 1]);
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.at - runs[i - 1]!.at).toBeGreaterThanOrEqual(75);
    expect(await queue.depth("test.debounced")).toBe(0);
  });

  it.skipIf(adapter.skip)("stops after the configured attempts when the error persists", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(1, async () => {
      throw new Error("still down");
    });
    await queue.enqueue("test.debounced", settle("p"), { delayMs: 20 });
    await waitFor(() => runs.length === 3, "three attempts");
    await sleep(400); // a fourth would start 200 ms after the third
    expect(runs).toHaveLength(3);
  });

  it.skipIf(adapter.skip)("a PermanentError fails the job without retry", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(1, async () => {
      throw new PermanentError("bad_trace", "trace cannot be settled");
    });
    await queue.enqueue("test.debounced", settle("p"), { delayMs: 20 });
    await waitFor(() => runs.length === 1, "the only attempt");
    await sleep(300); // a retry would start after 50 ms
    expect(runs).toHaveLength(1);
    expect(await queue.depth("test.debounced")).toBe(0);
  });

  it.skipIf(adapter.skip)("depth counts pending jobs once per key, and drops to zero when they finish", async () => {
    const { queue, runs, processWith } = await setup();
    for (const traceId of [traceA, traceB, "c".repeat(32), traceA]) {
      await queue.enqueue("test.debounced", settle("p", traceId), { delayMs: 100 });
    }
    expect(await queue.depth("test.debounced")).toBe(3);
    processWith(3);
    await waitFor(() => runs.length === 3, "three runs");
    const deadline = Date.now() + 2_000;
    while ((await queue.depth("test.debounced")) > 0 && Date.now() < deadline) await sleep(10);
    expect(await queue.depth("test.debounced")).toBe(0);
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
      "test.debounced",
      keys.map((k) => settle("p", k)),
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
    await queue.enqueue("test.debounced", settle("p"), { delayMs: 20 });
    await waitFor(() => runs.length === 1, "the run to start");
    const closes = [queue.close(5_000), queue.close(5_000)];
    await Promise.all(closes);
    expect(finished).toBe(true);
    await queue.close();
    await expect(queue.enqueue("test.debounced", settle("p"), { delayMs: 20 })).rejects.toBeInstanceOf(QueueClosedError);
  });

  it.skipIf(adapter.skip)("close() gives up on a stuck handler after its timeout", async () => {
    const { queue, runs, processWith } = await setup();
    processWith(1, () => new Promise<void>(() => {})); // never settles
    await queue.enqueue("test.debounced", settle("p"), { delayMs: 20 });
    await waitFor(() => runs.length === 1, "the run to start");
    const startedAt = Date.now();
    await queue.close(200);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
    expect(Date.now() - startedAt).toBeLessThan(2_500);
  });
  it.skipIf(adapter.skip)("trace.settle (the app's queue) is keyed by project and trace: one run per trace, projects apart", async () => {
    const { queue } = await setup();
    const ran: string[] = [];
    queue.start({ "trace.settle": async (p) => void ran.push(p.projectId) });
    await queue.enqueue("trace.settle", { projectId: "p1", traceId: traceA }, { delayMs: 100 });
    await queue.enqueue("trace.settle", { projectId: "p1", traceId: traceA }, { delayMs: 100 });
    await queue.enqueue("trace.settle", { projectId: "p2", traceId: traceA }, { delayMs: 100 });
    expect(await queue.depth("trace.settle")).toBe(2);
    await waitFor(() => ran.length === 2, "one run per project");
    await sleep(250);
    expect(ran.sort()).toEqual(["p1", "p2"]);
  });

  describe("unique", () => {
    it.skipIf(adapter.skip)("a same-key enqueue while pending is a no-op: payload kept, run time not pushed back; other keys run apart", async () => {
      const { queue } = await setup();
      const runs: { note: string | undefined; at: number }[] = [];
      queue.start({ "test.unique": async (p) => void runs.push({ note: p.note, at: Date.now() }) }, { concurrency: { "test.unique": 2 } });
      const firstAt = Date.now();
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "first" }, { delayMs: 300 });
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "second" }, { delayMs: 50 });
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "third" });
      await queue.enqueue("test.unique", { group: "g", id: "2", note: "other" }, { delayMs: 300 });
      expect(await queue.depth("test.unique")).toBe(2);
      await waitFor(() => runs.length === 2, "one run per key");
      await sleep(300);
      expect(runs.map((r) => r.note).sort()).toEqual(["first", "other"]);
      for (const run of runs) expect(run.at - firstAt).toBeGreaterThanOrEqual(295);
    });

    it.skipIf(adapter.skip)("a same-key enqueue while running is a no-op; once the job is done the key can be enqueued again", async () => {
      const { queue } = await setup();
      const release = deferred();
      const notes: (string | undefined)[] = [];
      queue.start({
        "test.unique": async (p) => {
          notes.push(p.note);
          if (notes.length === 1) await release.promise;
        },
      });
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "running" });
      await waitFor(() => notes.length === 1, "the first run");
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "during" });
      release.resolve();
      await sleep(300);
      expect(notes).toEqual(["running"]);
      const deadline = Date.now() + 2_000;
      while ((await queue.depth("test.unique")) > 0 && Date.now() < deadline) await sleep(10);
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "after" });
      await waitFor(() => notes.length === 2, "the run after completion");
      expect(notes).toEqual(["running", "after"]);
    });

    it.skipIf(adapter.skip)("a same-key enqueue while the job waits for its retry does not replace it or reset its attempts", async () => {
      const { queue } = await setup({ jobDefaults: { "test.unique": { attempts: 3, backoff: { type: "exponential", delay: 300 } } } });
      const seen: string[] = [];
      queue.start({
        "test.unique": async (p, run) => {
          seen.push(`${p.note}@${run.attempt}`);
          if (run.attempt === 1) throw new Error("transient");
        },
      });
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "original" });
      await waitFor(() => seen.length === 1, "the failing run");
      await queue.enqueue("test.unique", { group: "g", id: "1", note: "replacement" });
      await waitFor(() => seen.length === 2, "the retry");
      await sleep(200);
      expect(seen).toEqual(["original@1", "original@2"]);
    });
  });

  describe("rate-limited per key", () => {
    it.skipIf(adapter.skip)(
      "at most max runs per window per key across two workers; the excess waits (attempts untouched) and runs; other keys unaffected",
      async () => {
        const { queue, startTwoWorkers } = await setup();
        const limit = testRegistry["test.limited"].rateLimit; // 1 run per 400 ms
        const runs: { group: string; at: number; attempt: number }[] = [];
        startTwoWorkers({ "test.limited": async (p, run) => void runs.push({ group: p.group, at: Date.now(), attempt: run.attempt }) });
        await sleep(200); // both workers connected
        // Four jobs of one project, more deferrals for the last of them than it has attempts (3).
        await queue.enqueueMany(
          "test.limited",
          ["1", "2", "3", "4"].map((id) => ({ group: "busy", id })),
        );
        const otherAt = Date.now();
        await queue.enqueue("test.limited", { group: "quiet", id: "1" });
        await waitFor(() => runs.length === 5, "every job, none dropped", 10_000);
        await sleep(500);
        expect(runs).toHaveLength(5);
        const busy = runs.filter((r) => r.group === "busy");
        const perWindow = new Map<number, number>();
        for (const run of busy) {
          const window = Math.floor(run.at / limit.windowMs);
          perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
        }
        expect(
          [...perWindow.values()].every((n) => n <= limit.max),
          `busy runs per window: ${[...perWindow.values()]}`,
        ).toBe(true);
        expect(busy.at(-1)!.at - busy[0]!.at).toBeGreaterThanOrEqual(2 * limit.windowMs); // four windows at least apart
        expect(runs.map((r) => r.attempt)).toEqual([1, 1, 1, 1, 1]);
        const quiet = runs.find((r) => r.group === "quiet")!;
        expect(quiet.at - otherAt).toBeLessThan(limit.windowMs); // not queued behind the busy project
      },
    );

    it.skipIf(adapter.skip)("every enqueue is its own job (never deduplicated)", async () => {
      const { queue } = await setup();
      const notes: (string | undefined)[] = [];
      await queue.enqueue("test.limited", { group: "a", id: "1", note: "one" });
      await queue.enqueue("test.limited", { group: "a", id: "1", note: "two" });
      expect(await queue.depth("test.limited")).toBe(2);
      queue.start({ "test.limited": async (p) => void notes.push(p.note) });
      await waitFor(() => notes.length === 2, "both jobs", 5_000);
      expect(notes.sort()).toEqual(["one", "two"]);
    });
  });

  describe("acquireRate", () => {
    it.skipIf(adapter.skip)(
      "allows max uses per window per key across processes, then the ms until the window ends; other keys and queues unaffected",
      async () => {
        const { queue, secondProcess } = await setup();
        const second = secondProcess();
        const limit = { max: 3, windowMs: 1_000 };
        // Start at the beginning of a window, so all the uses below fall in one.
        await sleep(limit.windowMs - (Date.now() % limit.windowMs) + 5);
        const key = `endpoint-${Math.random()}`;
        const waits = [await queue.acquireRate(key, limit), await second.acquireRate(key, limit), await queue.acquireRate(key, limit)];
        expect(waits).toEqual([0, 0, 0]);
        const refused = await second.acquireRate(key, limit);
        expect(refused).toBeGreaterThan(0);
        expect(refused).toBeLessThanOrEqual(limit.windowMs);
        expect(await queue.acquireRate(key, limit)).toBeGreaterThan(0);
        expect(await queue.acquireRate(`${key}-other`, limit)).toBe(0);
        // The next window starts afresh.
        await sleep(refused + 5);
        expect(await second.acquireRate(key, limit)).toBe(0);
        await expect(queue.acquireRate(key, { max: 0, windowMs: 1_000 })).rejects.toBeInstanceOf(RangeError);
      },
    );
  });

  describe("scheduled", () => {
    it.skipIf(adapter.skip)("runs once per tick with two workers, and cannot be enqueued to", async () => {
      const { queue, startTwoWorkers } = await setup();
      const everyMs = testRegistry["test.tick"].everyMs;
      const runs: number[] = [];
      const startedAt = Date.now();
      startTwoWorkers({ "test.tick": async (p) => void (p.source === "schedule" && runs.push(Date.now())) });
      await sleep(everyMs * 4 + 200);
      const elapsed = Date.now() - startedAt;
      // A run at the start, then one per interval: never one per worker.
      expect(runs.length, `runs at ${runs.map((t) => t - startedAt).join(", ")} ms`).toBeGreaterThanOrEqual(3);
      expect(runs.length).toBeLessThanOrEqual(Math.floor(elapsed / everyMs) + 1);
      // A tick run by both workers would show as two runs a few ms apart; promotion latency moves a run by ~100 ms at most.
      for (let i = 1; i < runs.length; i++) expect(runs[i]! - runs[i - 1]!).toBeGreaterThanOrEqual(everyMs / 2);
      // @ts-expect-error: a scheduled queue has no producer
      const refused = await queue.enqueue("test.tick", { source: "schedule" }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PermanentError);
      expect((refused as PermanentError).code).toBe("not_enqueueable");
    });
  });

  it.skipIf(adapter.skip)(
    "one job runner classifies, times and logs every outcome, and tells the hook; failures leave with the sanitised message",
    async () => {
      const { entries, log } = recordingLog();
      const { queue } = await setup({ log });
      const events: JobOutcomeEvent[] = [];
      const tries = new Map<string, number>();
      queue.start(
        {
          "test.unique": async (p) => {
            const n = (tries.get(p.id) ?? 0) + 1;
            tries.set(p.id, n);
            if (p.id === "defer" && n === 1) throw new JobDeferral(50, "slots full");
            if (p.id === "flaky" && n === 1) throw new Error("Failed query: select secret params: hunter2");
            if (p.id === "bad") throw new PermanentError("bad_input", "cannot ever work");
            if (p.id === "down") throw new Error("Failed query: update secret params: hunter2");
          },
        },
        {
          concurrency: { "test.unique": 5 },
          onOutcome: (event) => void events.push(event),
          describeFailure: (err) => `sanitised: ${String((err as Error).message).split(":")[0]}`,
        },
      );
      await queue.enqueueMany(
        "test.unique",
        ["ok", "defer", "flaky", "bad", "down"].map((id) => ({ group: "g", id })),
      );
      await waitFor(() => events.filter((e) => e.outcome !== "deferred" && e.outcome !== "retry").length === 5, "every job to finish", 10_000);
      const outcomes = (id: string) => events.filter((e) => e.key === `g:${id}`).map((e) => `${e.outcome}@${e.attempt}/${e.attempts}`);
      expect(outcomes("ok")).toEqual(["completed@1/3"]);
      expect(outcomes("defer")).toEqual(["deferred@1/3", "completed@1/3"]);
      expect(outcomes("flaky")).toEqual(["retry@1/3", "completed@2/3"]);
      expect(outcomes("bad")).toEqual(["failed-permanent@1/3"]);
      expect(outcomes("down")).toEqual(["retry@1/3", "retry@2/3", "failed-exhausted@3/3"]);
      for (const event of events) expect(event.durationMs).toBeGreaterThanOrEqual(0);
      const failures = entries.filter((e) => e.msg.startsWith("job failed"));
      expect(failures.map((e) => `${e.level} ${String(e.extra.key)} ${String(e.extra.outcome)}`).sort()).toEqual(
        ["error g:bad failed-permanent", "error g:down failed-exhausted", "warn g:down retry", "warn g:down retry", "warn g:flaky retry"].sort(),
      );
      expect(JSON.stringify(entries)).not.toContain("hunter2");
      expect(failures.find((e) => e.extra.outcome === "failed-permanent")?.extra.error).toBe("bad_input: cannot ever work");
      expect(failures.find((e) => e.extra.outcome === "failed-exhausted")?.extra.error).toBe("sanitised: Failed query");
    },
  );

  it.skipIf(adapter.skip)("start() refuses an unknown queue, a bad concurrency, and a queue started twice", async () => {
    const { queue } = await setup();
    expect(() => queue.start({ "nope.queue": async () => {} } as never)).toThrow(/unknown queue "nope.queue"/);
    expect(() => queue.start({ "test.unique": async () => {} }, { concurrency: { "test.unique": 0 } })).toThrow(/positive integer/);
    queue.start({ "test.unique": async () => {} });
    expect(() => queue.start({ "test.unique": async () => {} })).toThrow(/already being processed/);
  });
});

describe("bullmq adapter with Redis unreachable", () => {
  it("enqueue, enqueueMany, depth and ping reject with OverloadedError within ~2 s instead of hanging; close() returns", async () => {
    const queue = createBullmqQueue({ redisUrl: "redis://127.0.0.1:1", prefix: `test-${randomUUID()}` });
    try {
      for (const call of [
        () => queue.enqueue("trace.settle", settle("p"), { delayMs: 50 }),
        () => queue.enqueueMany("trace.settle", [settle("p")], { delayMs: 50 }),
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
