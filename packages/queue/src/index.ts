export {
  queueRegistry,
  queueNames,
  queueNamesOf,
  defineQueue,
  parsePayload,
  jobDefaultsFor,
  backoffDelayMs,
  withScheduleEvery,
  type AppQueueRegistry,
  type QueueRegistry,
  type QueueDefinition,
  type QueueMode,
  type RateLimit,
  type QueueName,
  type EnqueueableName,
  type Payload,
  type JobDefaults,
  type JobDefaultsOverrides,
} from "./registry.ts";
export {
  QueueClosedError,
  JobDeferral,
  isJobDeferral,
  defaultCloseTimeoutMs,
  type JobQueue,
  type JobHandler,
  type JobHandlers,
  type JobRun,
  type StartOptions,
} from "./job-queue.ts";
export { type JobOutcome, type JobOutcomeEvent, type JobRunnerOptions } from "./job-runner.ts";
export { createBullmqQueue, defaultQueuePrefix, type BullmqQueueOptions } from "./bullmq-queue.ts";
export { createInProcessQueue, defaultMaxPendingJobs, type InProcessQueueOptions } from "./in-process-queue.ts";
export { purgeQueuePrefix } from "./purge.ts";
