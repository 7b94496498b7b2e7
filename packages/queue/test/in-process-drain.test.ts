/**
 * close() on the in-process queue drains: pending and delayed jobs run at once
 * (they live nowhere else), bounded by the deadline; close(0) still drops.
 */
import { describe, expect, it } from "vitest";
import { createInProcessQueue, QueueClosedError, type Payload } from "../src/index.ts";
import { recordingLog } from "./recording-log.ts";

const payload = (traceId: string): Payload<"trace.settle"> => ({ projectId: "p", traceId });
const trace = (c: string) => c.repeat(32);

describe("in-process queue close() drains", () => {
  it("runs delayed and waiting jobs at once instead of dropping them, in enqueue order", async () => {
    const { entries, log } = recordingLog();
    const queue = createInProcessQueue({ log });
    const ran: string[] = [];
    queue.start({ "trace.settle": async (p) => void ran.push(p.traceId[0]!) });
    for (const c of ["a", "b", "c"]) await queue.enqueue("trace.settle", payload(trace(c)), { delayMs: 60_000 });
    const startedAt = Date.now();
    await queue.close(5_000);
    expect(ran).toEqual(["a", "b", "c"]);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(await queue.depth("trace.settle")).toBe(0);
    expect(entries.find((e) => e.msg === "in-process queue closed")?.extra).toEqual({});
    await expect(queue.enqueue("trace.settle", payload(trace("d")), { delayMs: 0 })).rejects.toBeInstanceOf(QueueClosedError);
  });

  it("runs the follow-up accepted while a job was active", async () => {
    const queue = createInProcessQueue();
    const seen: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    queue.start({
      "trace.settle": async (p) => {
        seen.push(p.projectId);
        if (seen.length === 1) await first;
      },
    });
    await queue.enqueue("trace.settle", { projectId: "v1", traceId: trace("a") }, { delayMs: 0 });
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    await queue.enqueue("trace.settle", { projectId: "v2", traceId: trace("a") }, { delayMs: 60_000 });
    const closed = queue.close(5_000);
    release();
    await closed;
    expect(seen).toEqual(["v1", "v2"]);
  });

  it("runs the next stage a draining job enqueues, then refuses enqueues once nothing runs", async () => {
    const queue = createInProcessQueue();
    const ran: string[] = [];
    queue.start({
      "trace.settle": async (p) => {
        ran.push(`settle ${p.traceId[0]}`);
        await queue.enqueue("trace.score", p, { delayMs: 60_000 });
      },
      "trace.score": async (p) => void ran.push(`score ${p.traceId[0]}`),
    });
    for (const c of ["a", "b"]) await queue.enqueue("trace.settle", payload(trace(c)), { delayMs: 60_000 });
    const startedAt = Date.now();
    await queue.close(5_000);
    expect(ran.filter((r) => r.startsWith("score")).sort()).toEqual(["score a", "score b"]);
    expect(ran).toHaveLength(4);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    await expect(queue.enqueue("trace.score", payload(trace("c")), { delayMs: 0 })).rejects.toBeInstanceOf(QueueClosedError);
  });

  it("does not retry a job that fails while draining (its trace stays dirty for the next start)", async () => {
    const queue = createInProcessQueue({ jobDefaults: { "trace.settle": { attempts: 5, backoff: { type: "exponential", delay: 10 } } } });
    let runs = 0;
    queue.start({
      "trace.settle": async () => {
        runs++;
        throw new Error("database went away");
      },
    });
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 60_000 });
    await queue.close(2_000);
    expect(runs).toBe(1);
  });

  it("stops at the deadline: the stuck job is abandoned and what did not start is dropped and counted", async () => {
    const { entries, log } = recordingLog();
    const queue = createInProcessQueue({ log });
    const ran: string[] = [];
    queue.start({
      "trace.settle": (p) => {
        ran.push(p.traceId[0]!);
        return new Promise<void>(() => {}); // never settles
      },
    });
    await queue.enqueue("trace.settle", payload(trace("a")), { delayMs: 60_000 });
    await queue.enqueue("trace.settle", payload(trace("b")), { delayMs: 60_000 });
    const startedAt = Date.now();
    await queue.close(200);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
    expect(ran).toEqual(["a"]);
    expect(entries.find((e) => e.msg === "in-process queue closed")?.extra).toMatchObject({ droppedPendingJobs: 1, abandonedInFlight: 1 });
  });

  it("drops, and counts, jobs of a queue nobody processes; close(0) drops without running", async () => {
    const { entries, log } = recordingLog();
    const unprocessed = createInProcessQueue({ log });
    await unprocessed.enqueue("trace.settle", payload(trace("a")), { delayMs: 60_000 });
    await unprocessed.close(5_000);
    expect(entries.find((e) => e.msg === "in-process queue closed")?.extra).toMatchObject({ droppedPendingJobs: 1 });

    const immediate = createInProcessQueue();
    let runs = 0;
    immediate.start({ "trace.settle": async () => void runs++ });
    await immediate.enqueue("trace.settle", payload(trace("a")), { delayMs: 60_000 });
    await immediate.close(0);
    expect(runs).toBe(0);
    expect(await immediate.depth("trace.settle")).toBe(0);
  });
});
