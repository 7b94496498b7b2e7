/**
 * Experiments pinning the BullMQ 6 behaviour the adapter relies on, with raw
 * BullMQ (no adapter): if an upgrade changes any of it, these fail first.
 *   1. deduplication { id, replace, keepLastIfActive } + delay is a continuous
 *      debounce: a re-add while delayed replaces the job and restarts the delay.
 *   2. a re-add while the job is active is stored and becomes one more job
 *      (with the latest data) when the active one finishes.
 *   3. a fixed jobId equal to the key would defeat 1: the second add is
 *      dropped as a duplicate id, so the run time is not pushed back.
 */
import { randomUUID } from "node:crypto";
import { Queue, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { deferred, deleteKeysWithPrefix, redisUnavailableReason, sleep, testRedisUrl, waitFor } from "./redis-fixture.ts";

const unavailable = await redisUnavailableReason(testRedisUrl);
if (unavailable) console.warn(`skipping BullMQ semantics experiments: ${unavailable}`);

describe.skipIf(unavailable !== null)("BullMQ 6 deduplication semantics (raw BullMQ)", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function setup() {
    const prefix = `test-${randomUUID()}`;
    const client = new Redis(testRedisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue("exp", { connection: client, prefix });
    const runs: { data: { v: number }; at: number }[] = [];
    let gate: Promise<void> = Promise.resolve();
    const worker = new Worker(
      "exp",
      async (job: Job<{ v: number }>) => {
        runs.push({ data: job.data, at: Date.now() });
        await gate;
      },
      { connection: client, prefix, concurrency: 1 },
    );
    cleanups.push(async () => {
      await worker.close();
      await queue.close();
      client.disconnect();
      await deleteKeysWithPrefix(testRedisUrl, prefix);
    });
    return { queue, runs, worker, holdRuns: (p: Promise<void>) => (gate = p) };
  }

  const debounce = (key: string) => ({ deduplication: { id: key, replace: true, keepLastIfActive: true } });

  it("replace + keepLastIfActive + delay restarts the delay on every add and keeps the latest data", async () => {
    const { queue, runs } = setup();
    const delay = 150;
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
    const { queue, runs, holdRuns } = setup();
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

  it("a fixed jobId equal to the key drops the re-add, so it cannot debounce (why the adapter leaves job ids to BullMQ)", async () => {
    const { queue, runs } = setup();
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
