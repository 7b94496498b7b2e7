import type { Logger } from "pino";
import { describeError } from "./job-queue.ts";

/** Settles with the promise's value, or with done=false once ms have passed (the promise keeps running). */
export async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
  });
  // A late rejection after the deadline must not become an unhandled rejection.
  promise.catch(() => {});
  try {
    return await Promise.race([promise.then((value) => ({ done: true as const, value })), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Logs an error, but the same message from the same source at most once per
 * interval: a Redis outage makes every connection emit an error on each
 * reconnect attempt, and those would drown the log.
 */
export function createRepeatSuppressingLog(log: Logger, intervalMs = 30_000): (source: string, err: unknown) => void {
  const lastLogged = new Map<string, number>();
  return (source, err) => {
    const message = describeError(err);
    const id = `${source}\u0000${message}`;
    const now = Date.now();
    const previous = lastLogged.get(id);
    if (previous !== undefined && now - previous < intervalMs) return;
    if (lastLogged.size > 1_000) lastLogged.clear(); // bounded
    lastLogged.set(id, now);
    log.warn({ error: message }, source);
  };
}
