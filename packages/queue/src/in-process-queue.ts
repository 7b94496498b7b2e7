import { isPermanent, OverloadedError } from "@crux/core";
import { defaultCloseTimeoutMs, describeError, isJobDeferral, QueueClosedError, type JobHandler, type JobQueue, type QueueLog } from "./job-queue.ts";
import { backoffDelayMs, jobDefaultsFor, parsePayload, queueRegistry, type JobDefaultsOverrides, type QueueName } from "./registry.ts";

export interface InProcessQueueOptions {
  log?: QueueLog;
  /** Injectable timers, so tests can drive delays. */
  setTimeout?: typeof setTimeout;
  clearTimeout?: typeof clearTimeout;
  /** Cap on jobs held in memory (all queues); enqueue beyond it throws OverloadedError. */
  maxPendingJobs?: number;
  jobDefaults?: JobDefaultsOverrides;
}

export const defaultMaxPendingJobs = 100_000;
const overloadRetryAfterSeconds = 5;

type Timer = ReturnType<typeof setTimeout>;

/**
 * One key's job. Its life mirrors what the BullMQ adapter gets from
 * deduplication { replace, keepLastIfActive } + delay:
 *
 *   enqueue ─▶ delayed ──timer──▶ ready ──slot free──▶ active ─┬─ ok / permanent / exhausted ─▶ gone
 *                                                              │    (then `next`, if any, is enqueued)
 *                                                              └─ transient error ─▶ delayed (backoff)
 *   re-enqueue while delayed, in backoff or ready (overdue, waiting for a
 *     slot): payload replaced, delay restarted, attempts reset, `next` dropped
 *   re-enqueue while active: kept as `next` (latest wins), run after it finishes
 */
interface KeyedJob {
  readonly key: string;
  payload: unknown;
  state: "delayed" | "ready" | "active";
  /** Failed tries so far. */
  attemptsMade: number;
  timer?: Timer;
  next?: { payload: unknown; delayMs: number };
}

interface QueueState {
  readonly name: QueueName;
  readonly jobs: Map<string, KeyedJob>;
  /** Ready jobs in the order they became ready (Set keeps insertion order). */
  readonly ready: Set<KeyedJob>;
  worker?: { handler: JobHandler<QueueName>; concurrency: number; active: number };
}

/**
 * The embedded default: same contract as the BullMQ adapter, held in memory.
 * close() drains: delayed and waiting jobs run at once, within its deadline
 * (nothing else would run them: memory is all they live in). Jobs still
 * pending at the deadline, or on a crash, are lost; that is acceptable because
 * every job is re-derivable from Postgres (the sweeper re-enqueues dirty
 * traces).
 */
export function createInProcessQueue(opts: InProcessQueueOptions = {}): JobQueue {
  const log = opts.log ?? (() => {});
  const setTimer = opts.setTimeout ?? setTimeout;
  const clearTimer = opts.clearTimeout ?? clearTimeout;
  const maxPendingJobs = opts.maxPendingJobs ?? defaultMaxPendingJobs;
  const queues = new Map<QueueName, QueueState>();
  const inFlight = new Set<Promise<void>>();
  let jobCount = 0;
  let closing: Promise<void> | undefined;
  /** Set once close() stops running jobs (its deadline passed, or it drops instead of draining). */
  let stopped = false;

  function queueState(name: QueueName): QueueState {
    if (!Object.hasOwn(queueRegistry, name)) throw new Error(`unknown queue "${String(name)}"`);
    let state = queues.get(name);
    if (!state) {
      state = { name, jobs: new Map(), ready: new Set() };
      queues.set(name, state);
    }
    return state;
  }

  function assertOpen(): void {
    if (closing) throw new QueueClosedError("in-process");
  }

  function assertCapacity(newJobs: number): void {
    if (jobCount + newJobs > maxPendingJobs) {
      throw new OverloadedError(
        `in-process queue holds ${jobCount} jobs; adding ${newJobs} would exceed the cap of ${maxPendingJobs}`,
        overloadRetryAfterSeconds,
      );
    }
  }

  function arm(q: QueueState, job: KeyedJob, delayMs: number): void {
    if (closing) {
      // Draining: no waiting out delays (a follow-up run accepted before close()).
      job.state = "ready";
      q.ready.add(job);
      return;
    }
    job.state = "delayed";
    job.timer = setTimer(() => {
      job.timer = undefined;
      job.state = "ready";
      q.ready.add(job);
      pump(q);
    }, delayMs);
  }

  /** Applies one enqueue; capacity must have been checked by the caller. */
  function schedule(q: QueueState, key: string, payload: unknown, delayMs: number): void {
    const job = q.jobs.get(key);
    if (!job) {
      const created: KeyedJob = { key, payload, state: "delayed", attemptsMade: 0 };
      q.jobs.set(key, created);
      jobCount++;
      arm(q, created, delayMs);
      return;
    }
    switch (job.state) {
      case "delayed":
      case "ready":
        if (job.timer !== undefined) clearTimer(job.timer);
        q.ready.delete(job);
        job.payload = payload;
        job.attemptsMade = 0;
        job.next = undefined;
        arm(q, job, delayMs);
        return;
      case "active":
        job.next = { payload, delayMs };
        return;
    }
  }

  function pump(q: QueueState): void {
    const worker = q.worker;
    if (!worker || stopped) return;
    while (worker.active < worker.concurrency) {
      const first = q.ready.values().next();
      if (first.done) return;
      q.ready.delete(first.value);
      first.value.state = "active";
      worker.active++;
      const run = execute(q, worker, first.value).finally(() => inFlight.delete(run));
      inFlight.add(run);
    }
  }

  async function execute(q: QueueState, worker: NonNullable<QueueState["worker"]>, job: KeyedJob): Promise<void> {
    const defaults = jobDefaultsFor(q.name, opts.jobDefaults);
    let retryInMs: number | undefined;
    try {
      await worker.handler(parsePayload(q.name, job.payload), { attempt: job.attemptsMade + 1, attempts: defaults.attempts });
    } catch (err) {
      if (isJobDeferral(err)) {
        // Not a failure: back to delayed, attempts unchanged; the deferred run reads the latest state, so `next` is moot.
        worker.active--;
        if (closing) return;
        job.next = undefined;
        arm(q, job, err.delayMs);
        pump(q);
        return;
      }
      job.attemptsMade++;
      // No backoff while draining: the job is dropped, and its trace stays dirty for the next start.
      const willRetry = !isPermanent(err) && job.attemptsMade < defaults.attempts && !closing;
      if (willRetry) retryInMs = backoffDelayMs(defaults, job.attemptsMade);
      log("job failed", {
        queue: q.name,
        key: job.key,
        attempt: job.attemptsMade,
        willRetry,
        permanent: isPermanent(err),
        error: describeError(err),
      });
    }
    worker.active--;
    if (stopped) return; // close() gave up and dropped every pending job
    if (retryInMs !== undefined) {
      arm(q, job, retryInMs);
    } else {
      q.jobs.delete(job.key);
      jobCount--;
      // The follow-up was accepted while this job ran; it reuses the slot just freed.
      if (job.next) schedule(q, job.key, job.next.payload, job.next.delayMs);
    }
    pump(q);
  }

  return {
    kind: "in-process",

    async enqueue(name, payload, { key, delayMs }) {
      assertOpen();
      const parsed = parsePayload(name, payload);
      const q = queueState(name);
      if (!q.jobs.has(key)) assertCapacity(1);
      schedule(q, key, parsed, delayMs);
    },

    async enqueueMany(name, jobs, { delayMs }) {
      assertOpen();
      const parsed = jobs.map((job) => ({ key: job.key, payload: parsePayload(name, job.payload) }));
      const q = queueState(name);
      const newKeys = new Set(parsed.map((job) => job.key).filter((key) => !q.jobs.has(key)));
      assertCapacity(newKeys.size);
      for (const job of parsed) schedule(q, job.key, job.payload, delayMs);
    },

    process(name, handler, { concurrency }) {
      assertOpen();
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
      }
      const q = queueState(name);
      if (q.worker) throw new Error(`queue "${name}" is already being processed`);
      q.worker = { handler: handler as JobHandler<QueueName>, concurrency, active: 0 };
      pump(q);
    },

    async depth(name) {
      return queueState(name).jobs.size;
    },

    async ping() {
      assertOpen();
    },

    close(timeoutMs = defaultCloseTimeoutMs) {
      closing ??= (async () => {
        const draining = timeoutMs > 0;
        let pending = 0;
        for (const q of queues.values()) {
          for (const job of q.jobs.values()) {
            if (job.state === "active") continue;
            pending++;
            if (!draining || job.state !== "delayed") continue;
            // Draining: delays are not waited out; jobs run in enqueue order as slots free.
            if (job.timer !== undefined) clearTimer(job.timer);
            job.timer = undefined;
            job.state = "ready";
            q.ready.add(job);
          }
        }
        if (draining) for (const q of queues.values()) pump(q);
        else stopped = true; // close(0): drop at once, as before draining existed
        log("in-process queue closing", { pendingJobs: pending, inFlight: inFlight.size, draining });
        let deadline: Timer | undefined;
        const expired = new Promise<true>((resolve) => (deadline = setTimer(() => resolve(true), timeoutMs)));
        // A finishing job starts the next ready one before its own promise settles, so inFlight is
        // empty only once nothing runnable is left (a queue nobody processes keeps its jobs pending).
        let timedOut = false;
        while (inFlight.size > 0 && !timedOut) {
          timedOut = await Promise.race([Promise.allSettled([...inFlight]).then(() => false), expired]);
        }
        if (deadline !== undefined) clearTimer(deadline);
        stopped = true;
        let dropped = 0;
        for (const q of queues.values()) {
          for (const job of q.jobs.values()) {
            if (job.timer !== undefined) clearTimer(job.timer);
            if (job.state !== "active") dropped++;
          }
          q.jobs.clear();
          q.ready.clear();
        }
        jobCount = 0;
        log("in-process queue closed", dropped > 0 || inFlight.size > 0 ? { droppedPendingJobs: dropped, abandonedInFlight: inFlight.size, timeoutMs } : {});
      })();
      return closing;
    },
  };
}
