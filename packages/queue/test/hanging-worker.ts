/**
 * A worker process for crash-recovery tests: takes webhook.deliver jobs under the prefix and
 * lock given in argv, prints "running <deliveryId>" and never finishes one; the test kills it.
 */
import { createBullmqQueue } from "../src/index.ts";

const [redisUrl, prefix, lockMs] = process.argv.slice(2);
const queue = createBullmqQueue({ redisUrl: redisUrl!, prefix: prefix!, jobLockMs: Number(lockMs) });
queue.start({
  "webhook.deliver": async ({ deliveryId }) => {
    process.stdout.write(`running ${deliveryId}\n`);
    await new Promise(() => {});
  },
});
