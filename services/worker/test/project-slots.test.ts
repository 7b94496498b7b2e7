import { isJobDeferral } from "@crux/queue";
import { describe, expect, it } from "vitest";
import { createProjectSlots } from "../src/project-slots.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("project slots", () => {
  it("a job over the project's share waits for a fast job's slot instead of going back to the queue", async () => {
    const slots = createProjectSlots(1, { initialWaitMs: 500 });
    const order: string[] = [];
    const first = slots.run("p", async () => {
      await sleep(30);
      order.push("first");
    });
    const second = slots.run("p", async () => {
      order.push("second");
      expect(slots.active("p")).toBe(1);
    });
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "second"]);
    expect(slots.active("p")).toBe(0);
  });

  it("defers a job when the project's slots stay busy past the wait, and never holds another project's slot", async () => {
    const slots = createProjectSlots(1, { initialWaitMs: 20, deferMs: 250 });
    let release!: () => void;
    const slow = slots.run("slow", () => new Promise<void>((r) => (release = r)));
    const deferred = await slots.run("slow", async () => "ran").catch((err: unknown) => err);
    expect(isJobDeferral(deferred) && deferred.delayMs).toBe(250);
    // Another project is not limited by this one's share.
    await expect(slots.run("other", async () => "ran")).resolves.toBe("ran");
    release();
    await slow;
    expect(slots.active("slow")).toBe(0);
  });

  it("waits about twice the project's recent job time, within the maximum", async () => {
    const slots = createProjectSlots(1, { initialWaitMs: 5_000, maxWaitMs: 5_000 });
    await slots.run("p", () => sleep(5)); // a fast project: its mean job time is ~5 ms
    let release!: () => void;
    const held = slots.run("p", () => new Promise<void>((r) => (release = r)));
    const started = performance.now();
    const err = await slots.run("p", async () => "ran").catch((e: unknown) => e);
    const waited = performance.now() - started;
    expect(isJobDeferral(err)).toBe(true);
    // ~10 ms, not the 5 s a project of unknown job time would wait (margin for a loaded machine's timers).
    expect(waited).toBeLessThan(1_000);
    release();
    await held;
  });
});
