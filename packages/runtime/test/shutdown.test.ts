import { describe, expect, it } from "vitest";
import { createShutdown } from "../src/index.ts";

function recorder() {
  const lines: string[] = [];
  return { lines, log: (msg: string) => lines.push(msg) };
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
    const s = createShutdown({ deadlineMs: 1_000, log: () => {} });
    s.add("once", async () => {
      runs++;
    });
    const a = s.shutdown("first");
    const b = s.shutdown("second");
    expect(a).toBe(b);
    await a;
    expect(runs).toBe(1);
  });

  it("a failing step is logged and the later steps still run", async () => {
    const { lines, log } = recorder();
    const s = createShutdown({ deadlineMs: 1_000, log });
    let closed = false;
    s.add("broken", async () => Promise.reject(new Error("boom")));
    s.add("database", async () => {
      closed = true;
    });
    await s.shutdown("test");
    expect(closed).toBe(true);
    expect(lines).toContain("shutdown step 'broken' failed");
  });

  it("a step that never ends is cut at the deadline and the rest get what is left", async () => {
    const { lines, log } = recorder();
    const s = createShutdown({ deadlineMs: 50, log });
    let later = false;
    s.add("stuck", () => new Promise(() => {}));
    s.add("later", async () => {
      later = true;
    });
    await s.shutdown("test");
    expect(lines).toContain("shutdown step 'stuck' hit the deadline");
    expect(later).toBe(true);
    expect(lines.at(-1)).toBe("shutdown complete");
  });
});
