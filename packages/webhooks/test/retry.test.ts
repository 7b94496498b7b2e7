import { describe, expect, it } from "vitest";
import { decideRetry, isRetryable, parseRetryAfter, type DeliveryAttempt, type FailureKind, type RetryPolicy } from "../src/index.ts";

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };
const base = { durationMs: 5, responseExcerpt: "", responseTruncated: false, retryAfterMs: null };
const delivered: DeliveryAttempt = { ...base, ok: true, failure: null, status: 200 };
const failed = (kind: FailureKind, status: number | null = null, retryAfterMs: number | null = null): DeliveryAttempt => ({
  ...base,
  ok: false,
  status,
  retryAfterMs,
  failure: { kind, message: kind },
});

describe("retry policy", () => {
  it.each([
    [failed("timeout"), true],
    [failed("dns"), true],
    [failed("connect"), true],
    [failed("network"), true],
    [failed("http_status", 500), true],
    [failed("http_status", 503), true],
    [failed("http_status", 429), true],
    [failed("http_status", 400), false],
    [failed("http_status", 404), false],
    [failed("http_status", 410), false],
    [failed("redirect", 301), false],
    [failed("blocked_target"), false],
    [failed("invalid_url"), false],
    [delivered, false],
  ])("%# retryable: %s", (attempt, expected) => {
    expect(isRetryable(attempt as DeliveryAttempt)).toBe(expected);
  });

  it("backs off exponentially with full jitter, capped at maxDelayMs", () => {
    const attempt = failed("http_status", 502);
    const top = () => 0.999999;
    expect([1, 2, 3, 4].map((n) => decideRetry(attempt, n, { ...policy, maxAttempts: 10 }, top))).toEqual([
      { action: "retry", delayMs: 999 },
      { action: "retry", delayMs: 1999 },
      { action: "retry", delayMs: 3999 },
      { action: "retry", delayMs: 7999 },
    ]);
    expect(decideRetry(attempt, 8, { ...policy, maxAttempts: 10 }, top)).toEqual({ action: "retry", delayMs: 9999 });
    // Full jitter: the random draw scales the whole delay, down to zero.
    expect(decideRetry(attempt, 3, policy, () => 0)).toEqual({ action: "retry", delayMs: 0 });
    expect(decideRetry(attempt, 3, policy, () => 0.25)).toEqual({ action: "retry", delayMs: 1000 });
  });

  it("stops after maxAttempts", () => {
    const attempt = failed("connect");
    expect(decideRetry(attempt, 4, policy, () => 0.5).action).toBe("retry");
    expect(decideRetry(attempt, 5, policy, () => 0.5)).toEqual({ action: "failed", reason: "attempts_exhausted" });
  });

  it("honours Retry-After over the backoff, capped at maxRetryAfterMs", () => {
    expect(decideRetry(failed("http_status", 429, 30_000), 1, policy, () => 0.5)).toEqual({ action: "retry", delayMs: 30_000 });
    expect(decideRetry(failed("http_status", 503, 3_600_000), 1, policy, () => 0.5)).toEqual({ action: "retry", delayMs: 60_000 });
  });

  it("a non-retryable failure fails at once; a delivery is done", () => {
    expect(decideRetry(failed("http_status", 400), 1, policy, () => 0.5)).toEqual({ action: "failed", reason: "not_retryable" });
    expect(decideRetry(delivered, 1, policy, () => 0.5)).toEqual({ action: "delivered" });
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it.each([
    ["120", 120_000],
    [" 0 ", 0],
    ["Thu, 01 Jan 2026 00:01:30 GMT", 90_000],
    ["Wed, 31 Dec 2025 23:00:00 GMT", 0], // in the past: now
    ["soon", null],
    ["-5", null],
    ["1.5", null],
    [undefined, null],
  ])("%s → %s", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
