import { PermanentError } from "@crux/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { backoffDelayMs, defineQueue, jobDefaultsFor, parsePayload, queueNames, queueRegistry, withScheduleEvery } from "../src/index.ts";

describe("queue registry", () => {
  it("gives every queue retries with exponential backoff and bounded retention", () => {
    for (const name of queueNames) {
      const { defaults } = queueRegistry[name];
      expect(defaults.attempts).toBeGreaterThan(1);
      expect(defaults.backoff.type).toBe("exponential");
      expect(defaults.backoff.delay).toBeGreaterThan(0);
      expect(defaults.removeOnComplete).toBeGreaterThan(0);
      expect(defaults.removeOnFail).toBeGreaterThan(0);
    }
  });

  it("parses a valid payload and drops unknown fields", () => {
    const traceId = "0123456789abcdef0123456789abcdef";
    expect(parsePayload(queueRegistry, "trace.settle", { projectId: "p", traceId, spans: ["no bodies in Redis"] })).toEqual({
      projectId: "p",
      traceId,
    });
  });

  it("rejects an invalid payload with a PermanentError listing every issue", () => {
    let error: unknown;
    try {
      parsePayload(queueRegistry, "trace.settle", { projectId: "", traceId: "0123456789ABCDEF0123456789ABCDEF" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as PermanentError).code).toBe("invalid_payload");
    expect((error as Error).message).toMatch(/projectId/);
    expect((error as Error).message).toMatch(/traceId: traceId must be 32 lowercase hex/);
  });

  it("replaces a scheduled queue's interval in a copy, and only a scheduled queue's", () => {
    const copy = withScheduleEvery(queueRegistry, "alerts.evaluate", 250);
    expect(copy["alerts.evaluate"].everyMs).toBe(250);
    expect(queueRegistry["alerts.evaluate"].everyMs).toBe(60_000);
    expect(copy["trace.settle"]).toBe(queueRegistry["trace.settle"]);
    expect(() => withScheduleEvery(queueRegistry, "trace.settle", 250)).toThrow(/not scheduled/);
    expect(() => withScheduleEvery(queueRegistry, "alerts.evaluate", 0)).toThrow(RangeError);
  });

  it("rejects an unknown queue name", () => {
    expect(() => parsePayload(queueRegistry, "nope" as "trace.settle", {})).toThrow(/unknown queue "nope"/);
  });

  it("applies per-queue overrides over the registry defaults", () => {
    const merged = jobDefaultsFor(queueRegistry, "trace.settle", { "trace.settle": { attempts: 2 } });
    expect(merged.attempts).toBe(2);
    expect(merged.backoff).toEqual(queueRegistry["trace.settle"].defaults.backoff);
    expect(backoffDelayMs(merged, 1)).toBe(merged.backoff.delay);
    expect(backoffDelayMs(merged, 3)).toBe(merged.backoff.delay * 4);
  });

  it("declares trace.settle debounced, keyed by project and trace (the one key every producer uses)", () => {
    const settle = queueRegistry["trace.settle"];
    expect(settle.mode).toBe("debounced");
    expect(settle.key({ projectId: "p", traceId: "0123456789abcdef0123456789abcdef" })).toBe("p:0123456789abcdef0123456789abcdef");
  });

  it("refuses a definition that could never run: a bad rate limit, a bad interval, schedule data failing its schema", () => {
    const defaults = queueRegistry["trace.settle"].defaults;
    const payload = z.object({ projectId: z.string().min(1) });
    expect(() => defineQueue({ mode: "rate-limited", payload, defaults, key: (p) => p.projectId, rateLimit: { max: 0, windowMs: 1_000 } })).toThrow(
      /positive integer max/,
    );
    expect(() => defineQueue({ mode: "scheduled", payload, defaults, everyMs: 0, data: { projectId: "p" } })).toThrow(/everyMs/);
    expect(() => defineQueue({ mode: "scheduled", payload, defaults, everyMs: 1_000, data: { projectId: "" } })).toThrow();
  });
});
