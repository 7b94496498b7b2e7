import { OverloadedError, PermanentError } from "@crux/core";
import { DelayedError, Queue, UnrecoverableError, Worker, type Job, type JobsOptions } from "bullmq";
import { Redis } from "ioredis";
import { pino, type Logger } from "pino";
import {
  checkStart,
  defaultCloseTimeoutMs,
  describeError,
  QueueClosedError,
  type JobHandler,
  type JobHandlers,
  type JobQueue,
  type StartOptions,
} from "./job-queue.ts";
import { customRateScope, runJob, windowOf, type RateLimiter } from "./job-runner.ts";
import {
  assertRateLimit,
  definitionOf,
  jobDefaultsFor,
  jobKeyOf,
  parsePayload,
  queueNamesOf,
  queueRegistry,
  type AnyQueueDefinition,
  type AppQueueRegistry,
  type JobDefaultsOverrides,
  type QueueName,
  type QueueRegistry,
} from "./registry.ts";
import { createRepeatSuppressingLog, withDeadline } from "./timing.ts";

export interface BullmqQueueOptions<R extends QueueRegistry = AppQueueRegistry> {
  redisUrl: string;
  /** Redis key prefix; tests pass a unique one per test. */
  prefix?: string;
  /** The queues this instance knows (default: the app's registry). */
  registry?: R;
  log?: Logger;
  jobDefaults?: NoInfer<JobDefaultsOverrides<R>>;
  /** Upper bound on enqueue / depth / ping when Redis is slow or down (default 2000 ms). */
  commandTimeoutMs?: number;
  /**
   * How long a running job's lock lasts without renewal (default 15000 ms). A live worker renews it
   * every half of that; a job whose worker died (crash, kill -9) is found stalled within another
   * half and run again by a live worker, so it waits at most about 1.5 times this (BullMQ's
   * defaults, 30 s lock and 30 s check, made it up to a minute and more).
   */
  jobLockMs?: number;
}

const defaultJobLockMs = 15_000;

export const defaultQueuePrefix = "crux";
const defaultCommandTimeoutMs = 2_000;
const unavailableRetryAfterSeconds = 5;
const schedulerRetryMs = 5_000;

/**
 * Each mode's BullMQ job options, as verified in test/bullmq-dedup.int.test.ts.
 * debounced: the key is the deduplication id (not the job id: a fixed job id
 * makes BullMQ drop the re-add as a duplicate, so the delay would never be
 * pushed back); `replace` makes a re-add while delayed replace the job and
 * restart the delay; `keepLastIfActive` stores a re-add during a run as one
 * more job (latest data) for when it finishes, never a parallel run.
 * unique: plain deduplication id: a re-add is ignored until the job completes
 * or fails for good (retries and deferrals keep it).
 * rate-limited: no deduplication; the limit is applied when the job runs.
 */
function jobOptionsFor(name: string, definition: AnyQueueDefinition, key: string, delayMs: number, defaults: ReturnType<typeof jobDefaultsFor>): JobsOptions {
  const retention = {
    attempts: defaults.attempts,
    backoff: { type: defaults.backoff.type, delay: defaults.backoff.delay },
    removeOnComplete: defaults.removeOnComplete,
    removeOnFail: defaults.removeOnFail,
  };
  switch (definition.mode) {
    case "debounced":
      return { delay: delayMs, deduplication: { id: key, replace: true, keepLastIfActive: true }, ...retention };
    case "unique":
      return { delay: delayMs, deduplication: { id: key }, ...retention };
    case "rate-limited":
      return { delay: delayMs, ...retention };
    case "scheduled":
      throw new PermanentError("not_enqueueable", `queue "${name}" is scheduled: it runs on its schedule and cannot be enqueued to`);
  }
}

const downStatuses = new Set(["reconnecting", "close", "end"]);

// Redis reconnect pacing: quick first retries, then at most every 2 s.
const retryStrategy = (times: number): number => Math.min(times * 200, 2_000);

// One fixed-window counter per key and window, expiring with its window (plus slack for clock skew).
const takeRunScript = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** Per-key run counts in Redis, so the limit holds across every worker process of the prefix. */
function redisRateLimiter(client: () => Redis, prefix: string): RateLimiter {
  return {
    async acquire(queue, key, limit) {
      const window = windowOf(limit, Date.now());
      const counter = `${prefix}:${queue}:rate:${key}:${window.index}`;
      const runs = Number(await client().eval(takeRunScript, 1, counter, String(limit.windowMs + 60_000)));
      return runs <= limit.max ? 0 : window.endsInMs;
    },
  };
}

export function createBullmqQueue<R extends QueueRegistry = AppQueueRegistry>(opts: BullmqQueueOptions<R>): JobQueue<R> {
  const registry = (opts.registry ?? queueRegistry) as R;
  const prefix = opts.prefix ?? defaultQueuePrefix;
  const commandTimeoutMs = opts.commandTimeoutMs ?? defaultCommandTimeoutMs;
  const jobLockMs = opts.jobLockMs ?? defaultJobLockMs;
  const log = opts.log ?? pino({ enabled: false });
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
  let workerConnection: Redis | undefined; // created by the first start() call
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  const schedulerRetries = new Set<ReturnType<typeof setTimeout>>();
  let closing: Promise<void> | undefined;
  // The counters live on the worker connection: it waits out a Redis outage like the worker itself.
  const limiter = redisRateLimiter(() => workerConnection!, prefix);
  // acquireRate outside a started worker: on the producer, failing fast like enqueue.
  const producerLimiter = redisRateLimiter(() => producer, prefix);

  function assertOpen(): void {
    if (closing) throw new QueueClosedError("bullmq");
  }

  function queueFor(name: string): Queue {
    definitionOf(registry, name);
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

  function bulkFor(name: string, payloads: readonly unknown[], delayMs: number) {
    const definition = definitionOf(registry, name);
    const defaults = jobDefaultsFor(registry, name, opts.jobDefaults);
    return payloads.map((payload) => {
      const data = parsePayload(registry, name, payload);
      return { name, data, opts: jobOptionsFor(name, definition, jobKeyOf(definition, name, data), delayMs, defaults) };
    });
  }

  function processorFor(name: string, handler: JobHandler<never>, startOpts: StartOptions<R> | undefined) {
    return async (job: Job, token?: string): Promise<void> => {
      const result = await runJob({
        registry,
        name,
        data: job.data,
        run: { attempt: job.attemptsMade + 1, attempts: job.opts.attempts ?? 1 },
        handler,
        limiter,
        log,
        options: startOpts,
      });
      switch (result.outcome) {
        case "completed":
          return;
        case "deferred":
          // BullMQ's manual delay: move the job back and tell the worker not to count it as failed.
          await job.moveToDelayed(Date.now() + result.delayMs, token);
          throw new DelayedError();
        case "retry":
          throw new Error(result.message);
        case "failed-permanent":
        case "failed-exhausted":
          // Failed now, no retry (docs/engineering.md §6); the job runner has logged it.
          throw new UnrecoverableError(result.message);
      }
    };
  }

  /** Upserts a scheduled queue's job scheduler; BullMQ then adds one job per tick however many processes upsert it. */
  function ensureScheduler(name: string): void {
    const definition = definitionOf(registry, name);
    if (definition.mode !== "scheduled" || closing) return;
    const defaults = jobDefaultsFor(registry, name, opts.jobDefaults);
    const queue = queueFor(name);
    redisCall(`schedule ${name}`, () =>
      queue.upsertJobScheduler(
        name,
        { every: definition.everyMs },
        {
          name,
          data: definition.data,
          opts: { attempts: defaults.attempts, backoff: defaults.backoff, removeOnComplete: defaults.removeOnComplete, removeOnFail: defaults.removeOnFail },
        },
      ),
    ).catch((err: unknown) => {
      if (closing) return;
      logError(`schedule of ${name} not set; retrying`, err);
      const timer = setTimeout(() => {
        schedulerRetries.delete(timer);
        ensureScheduler(name);
      }, schedulerRetryMs);
      timer.unref();
      schedulerRetries.add(timer);
    });
  }

  async function closeWorkers(deadlineMs: number): Promise<void> {
    await Promise.all(
      workers.map(async (worker) => {
        // With Redis unreachable a worker cannot report its jobs done; waiting longer gains nothing.
        const timeoutMs = workerConnection?.status === "ready" ? deadlineMs : Math.min(deadlineMs, 1_000);
        const closed = await withDeadline(worker.close(), timeoutMs);
        if (!closed.done) {
          // Abandoned jobs keep their lock until it expires, then another worker retries them.
          log.warn({ queue: worker.name, timeoutMs }, "worker did not drain before the close deadline; disconnecting");
          await withDeadline(worker.disconnect(), 1_000);
        }
      }),
    );
  }

  // Create every queue now, so connecting and loading scripts do not eat into the
  // first enqueue: BullMQ measures `delay` from the add() call, not from its arrival.
  for (const name of queueNamesOf(registry)) queueFor(name);

  return {
    kind: "bullmq",

    async enqueue(name, payload, ...[enqueueOpts]) {
      assertOpen();
      const [job] = bulkFor(name, [payload], enqueueOpts?.delayMs ?? 0);
      const queue = queueFor(name);
      await redisCall(`enqueue ${name}`, () => queue.add(name, job!.data, job!.opts));
    },

    async enqueueMany(name, payloads, ...[enqueueOpts]) {
      assertOpen();
      const bulk = bulkFor(name, payloads, enqueueOpts?.delayMs ?? 0);
      if (bulk.length === 0) return;
      const queue = queueFor(name);
      await redisCall(`enqueueMany ${name}`, () => queue.addBulk(bulk));
    },

    start(handlers: JobHandlers<R>, startOpts?: StartOptions<R>) {
      assertOpen();
      const names = checkStart(registry, handlers, startOpts);
      for (const name of names) if (workers.some((w) => w.name === name)) throw new Error(`queue "${name}" is already being processed`);
      if (!workerConnection && names.length > 0) {
        // Workers must wait out Redis outages rather than fail commands (BullMQ's rule).
        workerConnection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null, retryStrategy });
        workerConnection.on("error", (err) => logError("redis worker connection error", err));
      }
      for (const name of names as QueueName<R>[]) {
        const worker = new Worker(name, processorFor(name, handlers[name] as JobHandler<never>, startOpts), {
          connection: workerConnection!,
          prefix,
          concurrency: startOpts?.concurrency?.[name] ?? 1,
          lockDuration: jobLockMs,
          stalledInterval: Math.max(1, Math.floor(jobLockMs / 2)),
        });
        worker.on("error", (err) => logError(`worker ${name} error`, err));
        workers.push(worker);
        ensureScheduler(name);
      }
    },

    async acquireRate(key, limit) {
      assertRateLimit(limit);
      // Inside a job the worker connection waits out a Redis outage as the job itself would.
      if (workerConnection) return limiter.acquire(customRateScope, key, limit);
      return redisCall("acquireRate", () => producerLimiter.acquire(customRateScope, key, limit));
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
        for (const timer of schedulerRetries) clearTimeout(timer);
        log.info({ workers: workers.length, queues: queues.size }, "bullmq queue closing");
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
        log.info({ elapsedMs: Date.now() - startedAt }, "bullmq queue closed");
      })();
      return closing;
    },
  };
}
