import { afterEach, describe, expect, it } from "vitest";
import { createLogger, createShutdown, onSignals } from "../src/index.ts";

/** A real pino logger whose JSON lines land in `entries` (and their messages in `lines`). */
function recorder() {
  const entries: { level: number; msg: string; [key: string]: unknown }[] = [];
  const lines: string[] = [];
  const write = (line: string) => {
    const entry = JSON.parse(line) as (typeof entries)[number];
    entries.push(entry);
    lines.push(entry.msg);
  };
  return { entries, lines, log: createLogger({ level: "info", name: "test", destination: { write } }) };
}

describe("createShutdown", () => {
  it("runs steps in registration order, each after the previous finished", async () => {
    const order: string[] = [];
    const { log } = recorder();
    const s = createShutdown({ deadlineMs: 1_000, log });
    s.add("intake", async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push("intake");
    });
    s.add("database", async () => {
      order.push("database");
    });
    await s.shutdown("test");
    expect(order).toEqual(["intake", "database"]);
  });

  it("is idempotent: a second call returns the same run and runs no step twice", async () => {
    let runs = 0;
    const s = createShutdown({ deadlineMs: 1_000, log: recorder().log });
    s.add("once", async () => {
      runs++;
    });
    const a = s.shutdown("first");
    const b = s.shutdown("second");
    expect(a).toBe(b);
    await a;
    expect(runs).toBe(1);
  });

  it("a failing step is logged as an error with its step and cause, and the later steps still run", async () => {
    const { entries, lines, log } = recorder();
    const s = createShutdown({ deadlineMs: 1_000, log });
    let closed = false;
    s.add("broken", async () => Promise.reject(new Error("boom")));
    s.add("database", async () => {
      closed = true;
    });
    await s.shutdown("test");
    expect(closed).toBe(true);
    expect(lines).toContain("shutdown step 'broken' failed");
    expect(entries.find((e) => e.msg === "shutdown step 'broken' failed")).toMatchObject({ level: 50, step: "broken", err: { message: "boom" } });
    expect(entries[0]).toMatchObject({ level: 30, msg: "shutting down (test)", reason: "test" });
  });

  it("a step that never ends is cut at the deadline (a warning) and the rest get what is left", async () => {
    const { entries, lines, log } = recorder();
    const s = createShutdown({ deadlineMs: 50, log });
    let later = false;
    s.add("stuck", () => new Promise(() => {}));
    s.add("later", async () => {
      later = true;
    });
    await s.shutdown("test");
    expect(lines).toContain("shutdown step 'stuck' hit the deadline");
    expect(entries.find((e) => e.msg === "shutdown step 'stuck' hit the deadline")).toMatchObject({ level: 40, step: "stuck", deadlineMs: 50 });
    expect(later).toBe(true);
    expect(lines.at(-1)).toBe("shutdown complete");
  });
});

describe("onSignals", () => {
  // process.emit runs the listeners as a delivered signal would, without signalling the test runner.
  const installed: { signal: "SIGINT" | "SIGTERM"; count: number }[] = [];
  function wire(now: () => number) {
    const before = { int: process.listenerCount("SIGINT"), term: process.listenerCount("SIGTERM") };
    const exits: number[] = [];
    let finish: () => void = () => {};
    const shutdown = () => new Promise<void>((r) => (finish = r));
    onSignals(shutdown, (code) => exits.push(code), now);
    installed.push({ signal: "SIGINT", count: before.int }, { signal: "SIGTERM", count: before.term });
    return { exits, finish: () => finish() };
  }
  afterEach(() => {
    for (const { signal, count } of installed.splice(0)) {
      for (const listener of process.listeners(signal).slice(count)) process.off(signal, listener);
    }
  });

  it("the same signal again within a second (the group's and pnpm's copy of one SIGTERM) does not cut the shutdown short", async () => {
    let t = 0;
    const { exits, finish } = wire(() => t);
    process.emit("SIGTERM");
    t = 15;
    process.emit("SIGTERM");
    expect(exits).toEqual([]);
    finish();
    await new Promise((r) => setImmediate(r));
    expect(exits).toEqual([0]);
  });

  it("a second signal later, or another signal, exits at once with 1", () => {
    let t = 0;
    const late = wire(() => t);
    process.emit("SIGINT");
    t = 1_500;
    process.emit("SIGINT");
    expect(late.exits).toEqual([1]);
  });

  it("another signal, even at once, exits with 1", () => {
    const other = wire(() => 0);
    process.emit("SIGTERM");
    process.emit("SIGINT");
    expect(other.exits).toEqual([1]);
  });
});
