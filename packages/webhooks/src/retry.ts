import type { DeliveryAttempt } from "./deliver.ts";

/**
 * Which attempts are tried again, and when. Pure: the caller passes the
 * attempt, how many were made, and a random source in [0, 1).
 */
export type RetryPolicy = {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The first retry waits up to this; each further retry doubles the ceiling. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A receiver's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
};

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 5_000,
  maxDelayMs: 60 * 60_000,
  maxRetryAfterMs: 60 * 60_000,
};

export type RetryDecision =
  { action: "delivered" } | { action: "retry"; delayMs: number } | { action: "failed"; reason: "not_retryable" | "attempts_exhausted" };

/** Network errors, timeouts, 5xx and 429 may pass; a 4xx, a redirect or a refused target will not. */
export function isRetryable(attempt: DeliveryAttempt): boolean {
  if (attempt.ok) return false;
  switch (attempt.failure.kind) {
    case "timeout":
    case "dns":
    case "connect":
    case "network":
      return true;
    case "http_status":
      return attempt.status === 429 || (attempt.status !== null && attempt.status >= 500);
    case "redirect":
    case "blocked_target":
    case "invalid_url":
      return false;
  }
}

export function decideRetry(attempt: DeliveryAttempt, attemptsMade: number, policy: RetryPolicy, random: () => number): RetryDecision {
  if (attempt.ok) return { action: "delivered" };
  if (!isRetryable(attempt)) return { action: "failed", reason: "not_retryable" };
  if (attemptsMade >= policy.maxAttempts) return { action: "failed", reason: "attempts_exhausted" };
  if (attempt.retryAfterMs !== null) return { action: "retry", delayMs: Math.min(attempt.retryAfterMs, policy.maxRetryAfterMs) };
  // Full jitter: uniform in [0, ceiling), so receivers recovering from an outage are not hit in waves.
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attemptsMade - 1));
  return { action: "retry", delayMs: Math.floor(random() * ceiling) };
}

/** Retry-After as delta-seconds or an HTTP-date (RFC 9110 §10.2.3), in ms from nowMs; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP-date form starts with the day name; Date.parse alone would read "-5" or "1.5" as years.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
