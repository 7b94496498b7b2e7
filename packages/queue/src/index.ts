export {
  queueRegistry,
  queueNames,
  parsePayload,
  settleJobKey,
  scoreJobKey,
  judgeJobKey,
  jobDefaultsFor,
  backoffDelayMs,
  type QueueName,
  type Payload,
  type JobDefaults,
  type JobDefaultsOverrides,
  type QueueDefinition,
} from "./registry.ts";
export {
  QueueClosedError,
  JobDeferral,
  isJobDeferral,
  defaultCloseTimeoutMs,
  type JobQueue,
  type JobHandler,
  type JobRun,
  type QueueLog,
} from "./job-queue.ts";
export { createBullmqQueue, defaultQueuePrefix, type BullmqQueueOptions } from "./bullmq-queue.ts";
export { createInProcessQueue, defaultMaxPendingJobs, type InProcessQueueOptions } from "./in-process-queue.ts";
export { purgeQueuePrefix } from "./purge.ts";
