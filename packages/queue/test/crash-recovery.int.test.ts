/**
 * A job whose worker process died mid-run (kill -9: no shutdown, no lock release) is run again by a
 * live worker within about 1.5 times the job lock (jobLockMs), not after BullMQ's defaults (a
 * 30 s lock checked every 30 s: a webhook delivery in flight was re-sent about 71 s later).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createBullmqQueue, purgeQueuePrefix } from "../src/index.ts";
import { redisUnavailableReason, testRedisUrl, waitFor } from "./redis-fixture.ts";

const skipReason = await redisUnavailableReason(testRedisUrl);
const hangingWorker = fileURLToPath(new URL("./hanging-worker.ts", import.meta.url));

describe.skipIf(skipReason !== null)("BullMQ crash recovery", () => {
  const prefix = `test-crash-${randomUUID()}`;
  afterAll(async () => {
    await purgeQueuePrefix(testRedisUrl, prefix);
  });

  it("runs a job again within about 1.5 × jobLockMs after its worker was killed", async () => {
    const lockMs = 2_000;
    const child = spawn(process.execPath, ["--import", "tsx", hangingWorker, testRedisUrl, prefix, String(lockMs)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    const producer = createBullmqQueue({ redisUrl: testRedisUrl, prefix, jobLockMs: lockMs });
    const rerun: number[] = [];
    try {
      await producer.enqueue("webhook.deliver", { deliveryId: "d-1" });
      await waitFor(() => out.includes("running d-1"), "the first worker to take the job", 60_000);
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const killedAt = Date.now();
      producer.start({
        "webhook.deliver": async () => {
          rerun.push(Date.now() - killedAt);
        },
      });
      await waitFor(() => rerun.length > 0, "the job to run again", 30_000);
      // Lock expiry (≤ lockMs) plus one stalled check (lockMs / 2), and a margin for a loaded machine.
      expect(rerun[0]).toBeLessThan(1.5 * lockMs + 2_000);
    } finally {
      child.kill("SIGKILL");
      await producer.close(1_000);
    }
  }, 120_000);
});
