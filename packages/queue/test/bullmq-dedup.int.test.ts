/**
 * Experiments pinning the BullMQ 6 behaviour the adapter relies on, with raw
 * BullMQ (no adapter): if an upgrade changes any of it, these fail first.
 *   1. deduplication { id, replace, keepLastIfActive } + delay is a continuous
 *      debounce: a re-add while delayed replaces the job and restarts the delay.
 *   2. a re-add while the job is active is stored and becomes one more job
 *      (with the latest data) when the active one finishes.
 *   3. a re-add while the job waits for a free worker slot is dropped (the
 *      waiting job keeps its data; it has not started, so it reads fresh state).
 *   4. a re-add while a failed job waits for its retry replaces it: a fresh
 *      job, attempts counted from zero.
 *   5. a fixed jobId equal to the key would defeat 1: the second add is
 *      dropped as a duplicate id, so the run time is not pushed back.
 * The in-process adapter implements the same transitions (see its diagram).
 */
import { randomUUID } from "node:crypto";
import { Queue, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { purgeQueuePrefix } from "../src/index.ts";
import { deferred, redisUnavailableReason, sleep, testRedisUrl, waitFor } from "./redis-fixture.ts";

const unavailable = await redisUnavailableReason(testRedisUrl);
if (unavailable) console.warn(`skipping BullMQ semantics experiments: ${unavailable}`);

describe.skipIf(unavailable !== null)("BullMQ 6 deduplication semantics (raw BullMQ)", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup() {
    const prefix = `test-${randomUUID()}`;
    const client = new Redis(testRedisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue("exp", { connection: client, prefix });
    const runs: { data: { v: number }; at: number; attemptsMade: number }[] = [];
    let gate: Promise<void> = Promise.resolve();
    let failUntil = 0;
    const worker = new Worker(
      "exp",
      async (job: Job<{ v: number }>) => {
        runs.push({ data: job.data, at: Date.now(), attemptsMade: job.attemptsMade });
        await gate;
        if (runs.length <= failUntil) throw new Error("transient");
      },
      { connection: client, prefix, concurrency: 1 },
    );
    cleanups.push(async () => {
      await worker.close();
      await queue.close();
      client.disconnect();
      await purgeQueuePrefix(testRedisUrl, prefix);
    });
    // Connect before timing anything: BullMQ measures `delay` from the add() call.
    await queue.waitUntilReady();
    await worker.waitUntilReady();
    return { queue, runs, worker, holdRuns: (p: Promise<void>) => (gate = p), failFirstRuns: (n: number) => (failUntil = n) };
  }

  const debounce = (key: string) => ({ deduplication: { id: key, replace: true, keepLastIfActive: true } });

  it("replace + keepLastIfActive + delay restarts the delay on every add and keeps the latest data", async () => {
    const { queue, runs } = await setup();
    const delay = 300;
    await queue.add("j", { v: 1 }, { ...debounce("k"), delay });
    await sleep(60);
    await queue.add("j", { v: 2 }, { ...debounce("k"), delay });
    await sleep(60);
    const lastAddAt = Date.now();
    await queue.add("j", { v: 3 }, { ...debounce("k"), delay });
    await waitFor(() => runs.length === 1, "the debounced run");
    await sleep(delay + 100);
    expect(runs.map((r) => r.data.v)).toEqual([3]);
    expect(runs[0]!.at - lastAddAt).toBeGreaterThanOrEqual(delay - 5);
  });

  it("an add while the job is active creates exactly one more job, after it, with the latest data", async () => {
    const { queue, runs, holdRuns } = await setup();
    const release = deferred();
    holdRuns(release.promise);
    await queue.add("j", { v: 1 }, { ...debounce("k"), delay: 20 });
    await waitFor(() => runs.length === 1, "the first run to start");
    await queue.add("j", { v: 2 }, { ...debounce("k"), delay: 50 });
    await queue.add("j", { v: 3 }, { ...debounce("k"), delay: 50 });
    const counts = await queue.getJobCounts("wait", "delayed", "active");
    expect(counts).toEqual({ wait: 0, delayed: 0, active: 1 }); // the follow-up is stored, not yet a job
    await sleep(100);
    expect(runs).toHaveLength(1); // never two runs of one key at once
    holdRuns(Promise.resolve());
    const releasedAt = Date.now();
    release.resolve();
    await waitFor(() => runs.length === 2, "the follow-up run");
    await sleep(150);
    expect(runs.map((r) => r.data.v)).toEqual([1, 3]);
    expect(runs[1]!.at - releasedAt).toBeGreaterThanOrEqual(45);
  });

  it("a job overdue but not started (workers busy) stays delayed, so a re-add still replaces it", async () => {
    const { queue, runs, holdRuns } = await setup();
    const release = deferred();
    holdRuns(release.promise);
    try {
      await queue.add("j", { v: 1 }, { ...debounce("busy"), delay: 10 });
      await waitFor(() => runs.length === 1, "the blocking run"); // concurrency 1 is now taken
      await queue.add("j", { v: 2 }, { ...debounce("k"), delay: 10 });
      await sleep(150); // k is overdue; busy workers do not promote it to wait
      expect(await queue.getJobCounts("wait", "delayed")).toEqual({ wait: 0, delayed: 1 });
      await queue.add("j", { v: 3 }, { ...debounce("k"), delay: 10 });
      expect(await queue.getJobCounts("wait", "delayed")).toEqual({ wait: 0, delayed: 1 });
      holdRuns(Promise.resolve());
    } finally {
      release.resolve();
    }
    await waitFor(() => runs.length === 2, "k's run");
    await sleep(200);
    expect(runs.map((r) => r.data.v)).toEqual([1, 3]);
  });

  it("a re-add while a failed job waits for its retry replaces it, with attempts counted from zero", async () => {
    const { queue, runs, failFirstRuns } = await setup();
    failFirstRuns(1);
    const retry = { attempts: 3, backoff: { type: "fixed", delay: 1_000 } };
    await queue.add("j", { v: 1 }, { ...debounce("k"), ...retry, delay: 10 });
    await waitFor(() => runs.length === 1, "the failing run");
    await sleep(100); // now delayed for its retry, 1 s away
    await queue.add("j", { v: 2 }, { ...debounce("k"), ...retry, delay: 50 });
    await waitFor(() => runs.length === 2, "the replacement run", 900);
    expect(runs[1]!.data.v).toBe(2);
    expect(runs[1]!.attemptsMade).toBe(0);
  });

  it("a fixed jobId equal to the key drops the re-add, so it cannot debounce (why the adapter leaves job ids to BullMQ)", async () => {
    const { queue, runs } = await setup();
    const delay = 400;
    const first = await queue.add("j", { v: 1 }, { ...debounce("k"), jobId: "k", delay });
    await sleep(250);
    const lastAddAt = Date.now();
    const second = await queue.add("j", { v: 2 }, { ...debounce("k"), jobId: "k", delay });
    expect(second.id).toBe(first.id);
    await waitFor(() => runs.length === 1, "the run");
    expect(runs[0]!.data.v).toBe(1); // the second add's data was dropped
    // ran on the first add's schedule (~150 ms after the re-add, plus BullMQ's
    // promotion latency of up to ~100 ms), not 400 ms after the re-add
    expect(runs[0]!.at - lastAddAt).toBeLessThan(delay - 50);
  });
});
