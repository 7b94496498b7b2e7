import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createBullmqQueue, purgeQueuePrefix } from "../src/index.ts";
import { redisUnavailableReason, testRedisUrl } from "./redis-fixture.ts";

const unavailable = await redisUnavailableReason(testRedisUrl);

describe.skipIf(unavailable !== null)("purgeQueuePrefix", () => {
  const redis = new Redis(testRedisUrl);
  afterAll(() => redis.disconnect());

  it("deletes every key of one prefix and leaves other prefixes alone", async () => {
    const doomed = `test-${randomUUID()}`;
    const kept = `test-${randomUUID()}`;
    for (const prefix of [doomed, kept]) {
      const queue = createBullmqQueue({ redisUrl: testRedisUrl, prefix });
      await queue.enqueueMany(
        "trace.settle",
        ["1", "2"].map((d) => ({ projectId: "p", traceId: d.repeat(32) })),
        { delayMs: 60_000 },
      );
      await queue.close();
    }
    expect((await redis.keys(`${doomed}:*`)).length).toBeGreaterThan(0);
    const keptBefore = (await redis.keys(`${kept}:*`)).sort();

    const deleted = await purgeQueuePrefix(testRedisUrl, doomed);

    expect(deleted).toBeGreaterThan(0);
    expect(await redis.keys(`${doomed}:*`)).toEqual([]);
    expect((await redis.keys(`${kept}:*`)).sort()).toEqual(keptBefore);
    await purgeQueuePrefix(testRedisUrl, kept);
  });

  it("refuses a prefix with glob or separator characters", async () => {
    await expect(purgeQueuePrefix(testRedisUrl, "*")).rejects.toThrow(/unsafe queue prefix/);
    await expect(purgeQueuePrefix(testRedisUrl, "crux:trace")).rejects.toThrow(/unsafe queue prefix/);
  });
});
