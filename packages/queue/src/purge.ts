import { Redis } from "ioredis";

/**
 * Deletes every Redis key under `prefix` (all queues, jobs and locks of that
 * prefix), returning how many were deleted. For throwaway prefixes: tests and
 * benchmarks, or retiring a deployment's queues. Never run it against a
 * prefix whose receiver or worker is still running.
 */
export async function purgeQueuePrefix(redisUrl: string, prefix: string): Promise<number> {
  if (!/^[A-Za-z0-9_.-]+$/.test(prefix)) throw new Error(`refusing to purge unsafe queue prefix ${JSON.stringify(prefix)}`);
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let deleted = 0;
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== "0");
    return deleted;
  } finally {
    client.disconnect();
  }
}
