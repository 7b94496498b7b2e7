import { gzipSync, deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ByteBudget, IntakeGate } from "../src/admission.ts";
import { BodyTooLargeError, decompressBody } from "../src/decompress.ts";
import { NotReadyError, ThrottledError, classifyIngestError } from "../src/errors.ts";

describe("ByteBudget", () => {
  it("admits up to the limit, refuses past it, and gives bytes back on release", () => {
    const seen: number[] = [];
    const budget = new ByteBudget(100, (n) => seen.push(n));
    const a = budget.lease();
    const b = budget.lease();
    expect(a.tryGrow(60)).toBe(true);
    expect(b.tryGrow(40)).toBe(true);
    expect(budget.full).toBe(true);
    expect(b.tryGrow(1)).toBe(false);
    expect(() => b.grow(1)).toThrow(ThrottledError);
    a.release();
    a.release(); // idempotent
    expect(budget.inUse).toBe(40);
    expect(b.tryGrow(60)).toBe(true);
    b.release();
    expect(budget.inUse).toBe(0);
    expect(seen.at(-1)).toBe(0);
  });

  it("never refuses a request alone (the body limit bounds it), even past the limit", () => {
    const budget = new ByteBudget(100);
    const alone = budget.lease();
    expect(alone.tryGrow(150)).toBe(true);
    expect(alone.tryGrow(50)).toBe(true);
    expect(budget.lease().tryGrow(1)).toBe(false);
    alone.release();
    expect(budget.inUse).toBe(0);
  });

  it("a refusal is a 429 with Retry-After naming the setting", () => {
    const f = classifyIngestError(new ByteBudget(5).refusal());
    expect(f).toEqual({
      kind: "throttled",
      reason: "inflight_bytes",
      message: "too many request bytes in flight (limit 5, CRUX_MAX_INFLIGHT_BYTES); retry later",
      retryAfterSeconds: 1,
    });
  });
});

describe("IntakeGate", () => {
  it("refuses with a retryable 'starting' failure until opened", () => {
    const gate = new IntakeGate("waiting for the database");
    expect(() => gate.check()).toThrow(NotReadyError);
    let thrown: unknown;
    try {
      gate.check();
    } catch (err) {
      thrown = err;
    }
    expect(classifyIngestError(thrown)).toEqual({
      kind: "unavailable",
      reason: "starting",
      message: "the receiver is starting (waiting for the database); retry later",
      retryAfterSeconds: 5,
    });
    gate.open();
    expect(() => gate.check()).not.toThrow();
  });
});

describe("decompressBody with a lease", () => {
  const text = Buffer.from("a".repeat(200_000));

  it("adds the inflated bytes to the lease as they grow; the request alone is admitted", async () => {
    const budget = new ByteBudget(1_000);
    const lease = budget.lease();
    expect((await decompressBody(gzipSync(text), "gzip", 1_000_000, lease)).equals(text)).toBe(true);
    expect(lease.bytes).toBe(200_000);
  });

  it("refuses once the inflated bytes pass the budget other requests share, and returns what it took", async () => {
    const budget = new ByteBudget(100_000);
    budget.lease().grow(10);
    const lease = budget.lease();
    await expect(decompressBody(gzipSync(text), "gzip", 1_000_000, lease)).rejects.toBeInstanceOf(ThrottledError);
    expect(lease.bytes).toBe(0);
    expect(budget.inUse).toBe(10);
  });

  it("still refuses a bomb past the body limit with BodyTooLargeError, and inflates raw deflate", async () => {
    await expect(decompressBody(gzipSync(Buffer.alloc(5_000_000)), "gzip", 1_000_000)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect((await decompressBody(deflateRawSync(text), "deflate", 1_000_000)).length).toBe(200_000);
  });
});
