/**
 * In-process specifics the shared contract cannot reach: the memory cap, and
 * exact timings under an injected clock.
 */
import { OverloadedError } from "@crux/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createInProcessQueue, defineQueue, queueRegistry, type Payload } from "../src/index.ts";
import { recordingLog } from "./recording-log.ts";

/** Timers that fire only when the test advances time; handlers' microtasks run in between. */
function manualClock() {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const setTimeoutFake = ((fn: () => void, ms: number) => {
    const id = nextId++;
    timers.set(id, { at: now + ms, fn });
    return id;
  }) as unknown as typeof setTimeout;
  const clearTimeoutFake = ((id: number) => void timers.delete(id)) as unknown as typeof clearTimeout;
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    setTimeout: setTimeoutFake,
    clearTimeout: clearTimeoutFake,
    now: () => now,
    pendingTimers: () => timers.size,
    /** Advances to `to`, firing due timers in time order. */
    async advanceTo(to: number) {
      await flush();
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
        await flush();
      }
      now = to;
    },
  };
}

const payload = (traceId: string): Payload<"trace.settle"> => ({ projectId: "p", traceId });
const trace = (c: string) => c.repeat(32);

describe("in-process queue memory cap", () => {
  it("throws OverloadedError beyond maxPendingJobs, but still accepts re-enqueues of held keys", async () => {
    const queue = createInProcessQueue({ maxPendingJobs: 2 });
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 1_000 });
    await queue.enqueue("trace.settle", payload(trace("b")), { delayMs: 1_000 });
    const error = await queue.enqueue("trace.settle", payload(trace("c")), { delayMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OverloadedError);
    expect((error as OverloadedError).retryAfterSeconds).toBeGreaterThan(0);
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 1_000 });
    expect(await queue.depth("trace.settle")).toBe(2);
    await queue.close(0);
  });

  it("rejects a whole enqueueMany batch that would exceed the cap, enqueuing none of it", async () => {
    const queue = createInProcessQueue({ maxPendingJobs: 3 });
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 1_000 });
    const batch = ["a", "b", "c", "d"].map((c) => payload(trace(c)));
    await expect(queue.enqueueMany("trace.settle", batch, { delayMs: 1_000 })).rejects.toBeInstanceOf(OverloadedError);
    expect(await queue.depth("trace.settle")).toBe(1);
    await queue.enqueueMany("trace.settle", batch.slice(0, 3), { delayMs: 1_000 }); // a is held already: 2 new
    expect(await queue.depth("trace.settle")).toBe(3);
    await queue.close(0);
  });

  it("frees a slot when a job finishes", async () => {
    const clock = manualClock();
    const queue = createInProcessQueue({ maxPendingJobs: 1, ...clock });
    queue.start({ "trace.settle": async () => {} });
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 10 });
    await clock.advanceTo(10);
    expect(await queue.depth("trace.settle")).toBe(0);
    await queue.enqueue("trace.settle", payload(trace("b")), { delayMs: 10 });
    expect(await queue.depth("trace.settle")).toBe(1);
    await queue.close(0);
  });
});

describe("in-process queue timing (injected clock)", () => {
  it("retries at delay × 2^(n-1) after each failure, up to the attempts", async () => {
    const clock = manualClock();
    const queue = createInProcessQueue({
      ...clock,
      jobDefaults: { "trace.settle": { attempts: 4, backoff: { type: "exponential", delay: 100 } } },
    });
    const startedAt: number[] = [];
    queue.start({
      "trace.settle": async () => {
        startedAt.push(clock.now());
        throw new Error("down");
      },
    });
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 30 });
    await clock.advanceTo(10_000);
    expect(startedAt).toEqual([30, 130, 330, 730]);
    expect(await queue.depth("trace.settle")).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    await queue.close(0);
  });

  it("restarts the delay on every enqueue of a pending key, and clears the superseded timer", async () => {
    const clock = manualClock();
    const queue = createInProcessQueue(clock);
    const startedAt: number[] = [];
    queue.start({ "trace.settle": async () => void startedAt.push(clock.now()) });
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 100 });
    await clock.advanceTo(90);
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 100 });
    expect(clock.pendingTimers()).toBe(1);
    await clock.advanceTo(180);
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 100 });
    await clock.advanceTo(1_000);
    expect(startedAt).toEqual([280]);
    await queue.close(0);
  });

  it("close() drops pending jobs, cancels their timers, and refuses a second start() of the queue", async () => {
    const clock = manualClock();
    const { entries, log } = recordingLog();
    const queue = createInProcessQueue({ ...clock, log });
    queue.start({ "trace.settle": async () => {} });
    expect(() => queue.start({ "trace.settle": async () => {} })).toThrow(/already being processed/);
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 100 });
    await queue.close(0);
    expect(clock.pendingTimers()).toBe(0);
    expect(await queue.depth("trace.settle")).toBe(0);
    expect(entries.map((e) => e.msg)).toContain("in-process queue closed");
  });

  it("a scheduled queue runs at start and then every interval, skipping a tick whose previous run has not finished", async () => {
    const clock = manualClock();
    const registry = {
      "test.tick": defineQueue({ mode: "scheduled", payload: z.object({}), everyMs: 100, data: {}, defaults: queueRegistry["trace.settle"].defaults }),
    };
    const queue = createInProcessQueue({ ...clock, registry });
    const startedAt: number[] = [];
    let release: () => void = () => {};
    queue.start(
      {
        "test.tick": async () => {
          startedAt.push(clock.now());
          if (startedAt.length === 2) await new Promise<void>((resolve) => (release = resolve));
        },
      },
      { concurrency: { "test.tick": 2 } },
    );
    await clock.advanceTo(350); // the run of tick 100 is still going at 200 and 300: both skipped, not doubled
    release();
    await clock.advanceTo(500);
    expect(startedAt).toEqual([0, 100, 400, 500]);
    await queue.close(0);
    expect(clock.pendingTimers()).toBe(0);
  });
});
