import { isPermanent, OverloadedError } from "@crux/core";
import { DelayedError, Queue, UnrecoverableError, Worker, type Job, type JobsOptions } from "bullmq";
import { Redis } from "ioredis";
import { defaultCloseTimeoutMs, describeError, isJobDeferral, QueueClosedError, type JobHandler, type JobQueue, type QueueLog } from "./job-queue.ts";
import { jobDefaultsFor, parsePayload, queueNames, queueRegistry, type JobDefaultsOverrides, type QueueName } from "./registry.ts";
import { createRepeatSuppressingLog, withDeadline } from "./timing.ts";

export interface BullmqQueueOptions {
  redisUrl: string;
  /** Redis key prefix; tests pass a unique one per test. */
  prefix?: string;
  log?: QueueLog;
  jobDefaults?: JobDefaultsOverrides;
  /** Upper bound on enqueue / depth / ping when Redis is slow or down (default 2000 ms). */
  commandTimeoutMs?: number;
}

export const defaultQueuePrefix = "crux";
const defaultCommandTimeoutMs = 2_000;
const unavailableRetryAfterSeconds = 5;

/**
 * Debounce, as verified in test/bullmq-dedup.int.test.ts: the key is the
 * deduplication id (not the job id: a fixed job id makes BullMQ drop the
 * re-add as a duplicate, so the delay would never be pushed back).
 * - replace: a re-add while the job is delayed replaces it and restarts the delay;
 * - keepLastIfActive: a re-add while it runs is stored and becomes one more
 *   job (latest data, same delay) when it finishes, never a parallel run.
 */
function jobOptionsFor(name: QueueName, key: string, delayMs: number, overrides?: JobDefaultsOverrides): JobsOptions {
  const defaults = jobDefaultsFor(name, overrides);
  return {
    delay: delayMs,
    deduplication: { id: key, replace: true, keepLastIfActive: true },
    attempts: defaults.attempts,
    backoff: { type: defaults.backoff.type, delay: defaults.backoff.delay },
    removeOnComplete: defaults.removeOnComplete,
    removeOnFail: defaults.removeOnFail,
  };
}

const downStatuses = new Set(["reconnecting", "close", "end"]);

// Redis reconnect pacing: quick first retries, then at most every 2 s.
const retryStrategy = (times: number): number => Math.min(times * 200, 2_000);

export function createBullmqQueue(opts: BullmqQueueOptions): JobQueue {
  const prefix = opts.prefix ?? defaultQueuePrefix;
  const commandTimeoutMs = opts.commandTimeoutMs ?? defaultCommandTimeoutMs;
  const log = opts.log ?? (() => {});
  const logError = createRepeatSuppressingLog(log);

  // Producer: no offline queue and a short connect timeout, so commands fail
  // fast while Redis is down instead of piling up in memory.
  const producer = new Redis(opts.redisUrl, {
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 1,
    retryStrategy,
  });
  producer.on("error", (err) => logError("redis producer connection error", err));
  let workerConnection: Redis | undefined; // created by the first process() call
  const queues = new Map<QueueName, Queue>();
  const workers: Worker[] = [];
  let closing: Promise<void> | undefined;

  function assertOpen(): void {
    if (closing) throw new QueueClosedError("bullmq");
  }

  function queueFor(name: QueueName): Queue {
    if (!Object.hasOwn(queueRegistry, name)) throw new Error(`unknown queue "${String(name)}"`);
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: producer, prefix });
      queue.on("error", (err) => logError(`queue ${name} error`, err));
      queues.set(name, queue);
    }
    return queue;
  }

  /** Runs a Redis call with a deadline; any failure becomes a retryable OverloadedError. */
  async function redisCall<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      // Known down (lost and retrying, or ended): fail now rather than wait out the deadline.
      if (downStatuses.has(producer.status)) throw new Error(`connection is ${producer.status}`);
      // Still making its first connection: wait for it (within the deadline), since
      // without an offline queue a command sent now would be refused.
      const result = await withDeadline(producerReady().then(call), commandTimeoutMs);
      if (!result.done) throw new Error(`no answer within ${commandTimeoutMs} ms`);
      return result.value;
    } catch (err) {
      throw new OverloadedError(`redis unavailable for ${what}: ${describeError(err)}`, unavailableRetryAfterSeconds);
    }
  }

  // One shared wait for the first connection, so a burst of calls at startup
  // does not pile listeners onto the client.
  let firstConnection: Promise<void> | undefined;
  function producerReady(): Promise<void> {
    if (producer.status === "ready") return Promise.resolve();
    firstConnection ??= new Promise<void>((resolve, reject) => {
      const onReady = () => settle(resolve);
      const onDown = () => settle(() => reject(new Error("connection failed")));
      const settle = (fn: () => void) => {
        producer.off("ready", onReady);
        producer.off("end", onDown);
        producer.off("reconnecting", onDown);
        firstConnection = undefined;
        fn();
      };
      producer.once("ready", onReady);
      producer.once("end", onDown);
      producer.once("reconnecting", onDown); // the attempt failed: down, fail fast
    });
    return firstConnection;
  }

  function processorFor(name: QueueName, handler: JobHandler<QueueName>) {
    return async (job: Job, token?: string): Promise<void> => {
      // Permanent failures become UnrecoverableError: failed now, no retry (docs/engineering.md §6).
      let payload;
      try {
        payload = parsePayload(name, job.data);
      } catch (err) {
        throw new UnrecoverableError(describeError(err));
      }
      try {
        await handler(payload, { attempt: job.attemptsMade + 1, attempts: job.opts.attempts ?? 1 });
      } catch (err) {
        if (isPermanent(err)) throw new UnrecoverableError(`${err.code}: ${err.message}`);
        if (isJobDeferral(err)) {
          // BullMQ's manual delay: move the job back and tell the worker not to count it as failed.
          await job.moveToDelayed(Date.now() + err.delayMs, token);
          throw new DelayedError();
        }
        throw err;
      }
    };
  }

  async function closeWorkers(deadlineMs: number): Promise<void> {
    await Promise.all(
      workers.map(async (worker) => {
        // With Redis unreachable a worker cannot report its jobs done; waiting longer gains nothing.
        const timeoutMs = workerConnection?.status === "ready" ? deadlineMs : Math.min(deadlineMs, 1_000);
        const closed = await withDeadline(worker.close(), timeoutMs);
        if (!closed.done) {
          // Abandoned jobs keep their lock until it expires, then another worker retries them.
          log("worker did not drain before the close deadline; disconnecting", { queue: worker.name, timeoutMs });
          await withDeadline(worker.disconnect(), 1_000);
        }
      }),
    );
  }

  // Create every queue now, so connecting and loading scripts do not eat into the
  // first enqueue: BullMQ measures `delay` from the add() call, not from its arrival.
  for (const name of queueNames) queueFor(name);

  return {
    kind: "bullmq",

    async enqueue(name, payload, { key, delayMs }) {
      assertOpen();
      const parsed = parsePayload(name, payload);
      const queue = queueFor(name);
      await redisCall(`enqueue ${name}`, () => queue.add(name, parsed, jobOptionsFor(name, key, delayMs, opts.jobDefaults)));
    },

    async enqueueMany(name, jobs, { delayMs }) {
      assertOpen();
      const bulk = jobs.map((job) => ({
        name,
        data: parsePayload(name, job.payload),
        opts: jobOptionsFor(name, job.key, delayMs, opts.jobDefaults),
      }));
      if (bulk.length === 0) return;
      const queue = queueFor(name);
      await redisCall(`enqueueMany ${name}`, () => queue.addBulk(bulk));
    },

    process(name, handler, { concurrency }) {
      assertOpen();
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
      }
      if (workers.some((w) => w.name === name)) throw new Error(`queue "${name}" is already being processed`);
      if (!Object.hasOwn(queueRegistry, name)) throw new Error(`unknown queue "${String(name)}"`);
      if (!workerConnection) {
        // Workers must wait out Redis outages rather than fail commands (BullMQ's rule).
        workerConnection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null, retryStrategy });
        workerConnection.on("error", (err) => logError("redis worker connection error", err));
      }
      const worker = new Worker(name, processorFor(name, handler as JobHandler<QueueName>), {
        connection: workerConnection,
        prefix,
        concurrency,
      });
      worker.on("error", (err) => logError(`worker ${name} error`, err));
      worker.on("failed", (job, err) => {
        log("job failed", {
          queue: name,
          key: job?.deduplicationId,
          attempt: job?.attemptsMade,
          willRetry: job !== undefined && !(err instanceof UnrecoverableError) && job.attemptsMade < (job.opts.attempts ?? 1),
          error: describeError(err),
        });
      });
      workers.push(worker);
    },

    async depth(name) {
      const queue = queueFor(name);
      const counts = await redisCall(`depth ${name}`, () => queue.getJobCounts("wait", "prioritized", "delayed", "active"));
      return Object.values(counts).reduce((sum, n) => sum + n, 0);
    },

    async ping() {
      assertOpen();
      await redisCall("ping", () => producer.ping());
    },

    close(timeoutMs = defaultCloseTimeoutMs) {
      closing ??= (async () => {
        const startedAt = Date.now();
        log("bullmq queue closing", { workers: workers.length, queues: queues.size });
        await closeWorkers(timeoutMs);
        // With Redis unreachable there is nothing to flush: do not wait out the whole deadline.
        const remainingMs = producer.status === "ready" ? Math.max(timeoutMs - (Date.now() - startedAt), 500) : 500;
        await withDeadline(Promise.allSettled([...queues.values()].map((q) => q.close())), remainingMs);
        // Both connections are ours (BullMQ leaves caller-owned clients open).
        for (const client of [producer, workerConnection]) {
          if (!client) continue;
          if (client.status === "ready")
            await withDeadline(
              client.quit().catch(() => "OK"),
              500,
            );
          client.disconnect();
        }
        log("bullmq queue closed", { elapsedMs: Date.now() - startedAt });
      })();
      return closing;
    },
  };
}
