import { Redis } from "ioredis";

/** REDIS_URL when set, else the local default (the rules of the integration project). */
export const testRedisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Resolves to null when Redis answers PING, else to the reason it did not (shown in the skip message).
 * With REDIS_URL set (CI, the production path) Redis is required: it throws instead, so an unreachable
 * Redis fails the run rather than silently skipping the BullMQ cases.
 */
export async function redisUnavailableReason(url: string): Promise<string | null> {
  const reason = await probeRedis(url);
  if (reason !== null && process.env.REDIS_URL) throw new Error(`REDIS_URL is set but ${reason}`);
  return reason;
}

async function probeRedis(url: string): Promise<string | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => {}); // the connect() rejection carries the reason
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (err) {
    return `Redis at ${url} unreachable: ${(err as Error).message}`;
  } finally {
    client.disconnect();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until predicate holds, failing with `what` after timeoutMs. */
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

/** A promise plus its resolver, to hold a handler open until the test releases it. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
