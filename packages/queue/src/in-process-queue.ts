import { OverloadedError, PermanentError } from "@crux/core";
import { pino, type Logger } from "pino";
import { checkStart, defaultCloseTimeoutMs, QueueClosedError, type JobHandler, type JobHandlers, type JobQueue, type StartOptions } from "./job-queue.ts";
import { customRateScope, runJob, windowOf, type JobRunnerOptions, type RateLimiter } from "./job-runner.ts";
import {
  assertRateLimit,
  backoffDelayMs,
  definitionOf,
  jobDefaultsFor,
  jobKeyOf,
  parsePayload,
  queueRegistry,
  type AnyQueueDefinition,
  type AppQueueRegistry,
  type JobDefaultsOverrides,
  type QueueName,
  type QueueRegistry,
} from "./registry.ts";

export interface InProcessQueueOptions<R extends QueueRegistry = AppQueueRegistry> {
  /** The queues this instance knows (default: the app's registry). */
  registry?: R;
  log?: Logger;
  /** Injectable timers, so tests can drive delays. */
  setTimeout?: typeof setTimeout;
  clearTimeout?: typeof clearTimeout;
  /** Cap on jobs held in memory (all queues); enqueue beyond it throws OverloadedError. */
  maxPendingJobs?: number;
  jobDefaults?: NoInfer<JobDefaultsOverrides<R>>;
}

export const defaultMaxPendingJobs = 100_000;
const overloadRetryAfterSeconds = 5;

type Timer = ReturnType<typeof setTimeout>;

/**
 * One pending job. Its life mirrors what the BullMQ adapter gets from its
 * job options per mode (bullmq-queue.ts, jobOptionsFor):
 *
 *   enqueue ─▶ delayed ──timer──▶ ready ──slot free──▶ active ─┬─ ok / permanent / exhausted ─▶ gone
 *                                                              │    (then `next`, if any, is enqueued)
 *                                                              ├─ transient error ─▶ delayed (backoff)
 *                                                              └─ deferred (JobDeferral, rate limit) ─▶ delayed
 *   debounced, re-enqueue while delayed, in backoff or ready (overdue, waiting
 *     for a slot): payload replaced, delay restarted, attempts reset, `next` dropped;
 *     while active: kept as `next` (latest wins), run after it finishes
 *   unique / scheduled tick, same key held in any state: nothing happens
 *   rate-limited: every enqueue is a job of its own
 */
interface PendingJob {
  /** Its entry in the queue's map: the key, or the key plus a sequence number for rate-limited jobs. */
  readonly id: string;
  payload: unknown;
  state: "delayed" | "ready" | "active";
  /** Failed tries so far. */
  attemptsMade: number;
  timer?: Timer;
  next?: { payload: unknown; delayMs: number };
}

interface QueueState {
  readonly name: string;
  readonly definition: AnyQueueDefinition;
  readonly jobs: Map<string, PendingJob>;
  /** Ready jobs in the order they became ready (Set keeps insertion order). */
  readonly ready: Set<PendingJob>;
  worker?: { handler: JobHandler<never>; concurrency: number; active: number; options: JobRunnerOptions | undefined };
  /** The next tick of a scheduled queue. */
  tick?: Timer;
}

/** Per-key run counts of this process (the only process there is on the embedded default). */
function memoryRateLimiter(): RateLimiter {
  const windows = new Map<string, { index: number; runs: number }>();
  return {
    async acquire(queue, key, limit) {
      const window = windowOf(limit, Date.now());
      const id = `${queue}\u0000${key}`;
      const current = windows.get(id);
      if (current?.index === window.index) {
        if (current.runs >= limit.max) return window.endsInMs;
        current.runs++;
        return 0;
      }
      if (windows.size > 10_000) windows.clear(); // bounded; a past window's count no longer matters
      windows.set(id, { index: window.index, runs: 1 });
      return 0;
    },
  };
}

/**
 * The embedded default: same contract as the BullMQ adapter, held in memory.
 * close() drains: delayed and waiting jobs run at once, within its deadline
 * (nothing else would run them: memory is all they live in), and so do jobs
 * that running jobs enqueue meanwhile (the next stage of a trace). Jobs still
 * pending at the deadline, or on a crash, are lost; that is acceptable because
 * every job is re-derivable from Postgres (the sweeper re-enqueues dirty
 * traces). "Several workers" here means concurrency above 1 in this one
 * process: a scheduled queue still runs once per tick.
 */
export function createInProcessQueue<R extends QueueRegistry = AppQueueRegistry>(opts: InProcessQueueOptions<R> = {}): JobQueue<R> {
  const registry = (opts.registry ?? queueRegistry) as R;
  const log = opts.log ?? pino({ enabled: false });
  const setTimer = opts.setTimeout ?? setTimeout;
  const clearTimer = opts.clearTimeout ?? clearTimeout;
  const maxPendingJobs = opts.maxPendingJobs ?? defaultMaxPendingJobs;
  const limiter = memoryRateLimiter();
  const queues = new Map<string, QueueState>();
  const inFlight = new Set<Promise<void>>();
  let jobCount = 0;
  let sequence = 0;
  let closing: Promise<void> | undefined;
  /** Set once close() stops running jobs (its deadline passed, or it drops instead of draining). */
  let stopped = false;
  /** close() was called with a deadline: pending jobs run at once until it passes. */
  let draining = false;

  function queueState(name: string): QueueState {
    const definition = definitionOf(registry, name);
    let state = queues.get(name);
    if (!state) {
      state = { name, definition, jobs: new Map(), ready: new Set() };
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

  function arm(q: QueueState, job: PendingJob, delayMs: number): void {
    // `draining` too: close() starts jobs before its promise is assigned to `closing`.
    if (closing || draining) {
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

  /** The map entry a new enqueue of `key` goes to; rate-limited jobs never share one. */
  function idFor(q: QueueState, key: string): string {
    return q.definition.mode === "rate-limited" ? `${key}\u0000${++sequence}` : key;
  }

  /** Applies one enqueue; capacity must have been checked by the caller. */
  function schedule(q: QueueState, id: string, payload: unknown, delayMs: number): void {
    const job = q.jobs.get(id);
    if (!job) {
      const created: PendingJob = { id, payload, state: "delayed", attemptsMade: 0 };
      q.jobs.set(id, created);
      jobCount++;
      arm(q, created, delayMs);
      return;
    }
    if (q.definition.mode !== "debounced") return; // unique, or a scheduled tick still pending or running
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

  async function execute(q: QueueState, worker: NonNullable<QueueState["worker"]>, job: PendingJob): Promise<void> {
    const defaults = jobDefaultsFor(registry, q.name, opts.jobDefaults);
    const result = await runJob({
      registry,
      name: q.name,
      data: job.payload,
      run: { attempt: job.attemptsMade + 1, attempts: defaults.attempts },
      handler: worker.handler,
      limiter,
      log,
      options: worker.options,
      // While draining there is no later attempt: the job is dropped, its work stays re-derivable (the sweeper).
      mayRetry: () => !closing,
    });
    worker.active--;
    if (stopped) return; // close() gave up and dropped every pending job
    if (result.outcome === "deferred") {
      // Not a failure: back to delayed, attempts unchanged; the deferred run reads the latest state, so `next` is moot.
      job.next = undefined;
      if (closing)
        job.state = "delayed"; // not run again while draining; counted as dropped
      else arm(q, job, result.delayMs);
    } else if (result.outcome === "retry") {
      job.attemptsMade++;
      arm(q, job, backoffDelayMs(defaults, job.attemptsMade));
    } else {
      q.jobs.delete(job.id);
      jobCount--;
      // The follow-up was accepted while this job ran; it reuses the slot just freed.
      if (job.next) schedule(q, job.id, job.next.payload, job.next.delayMs);
    }
    pump(q);
  }

  /** A scheduled queue's tick: one job, unless the previous tick's job is still pending or running. */
  function tick(q: QueueState, everyMs: number, data: unknown): void {
    q.tick = undefined;
    if (closing) return;
    if (q.jobs.has(q.name)) log.debug({ queue: q.name }, "scheduled tick skipped: the previous run has not finished");
    else if (jobCount >= maxPendingJobs) log.warn({ queue: q.name, maxPendingJobs }, "scheduled tick skipped: the in-process queue is full");
    else schedule(q, q.name, data, 0);
    q.tick = setTimer(() => tick(q, everyMs, data), everyMs);
  }

  function enqueueAll(name: string, payloads: readonly unknown[], delayMs: number): void {
    // While draining, a running job may still start its next stage (settle → score): memory is all that
    // job would live in, so it runs within the same deadline. Producers outside a job are closed first
    // (shutdown stops intake before the queue), and nothing is accepted once no job is running.
    if (!(draining && !stopped && inFlight.size > 0)) assertOpen();
    const q = queueState(name);
    if (q.definition.mode === "scheduled") {
      throw new PermanentError("not_enqueueable", `queue "${name}" is scheduled: it runs on its schedule and cannot be enqueued to`);
    }
    const parsed = payloads.map((payload) => {
      const data = parsePayload(registry, name, payload);
      return { key: jobKeyOf(q.definition, name, data), data };
    });
    const newJobs = q.definition.mode === "rate-limited" ? parsed.length : new Set(parsed.map((j) => j.key).filter((key) => !q.jobs.has(key))).size;
    assertCapacity(newJobs);
    for (const job of parsed) schedule(q, idFor(q, job.key), job.data, delayMs);
    if (closing || draining) pump(q); // draining: no timer will
  }

  return {
    kind: "in-process",

    async enqueue(name, payload, ...[enqueueOpts]) {
      enqueueAll(name, [payload], enqueueOpts?.delayMs ?? 0);
    },

    async enqueueMany(name, payloads, ...[enqueueOpts]) {
      enqueueAll(name, payloads, enqueueOpts?.delayMs ?? 0);
    },

    start(handlers: JobHandlers<R>, startOpts?: StartOptions<R>) {
      assertOpen();
      const names = checkStart(registry, handlers, startOpts);
      for (const name of names) if (queueState(name).worker) throw new Error(`queue "${name}" is already being processed`);
      for (const name of names as QueueName<R>[]) {
        const q = queueState(name);
        q.worker = { handler: handlers[name] as JobHandler<never>, concurrency: startOpts?.concurrency?.[name] ?? 1, active: 0, options: startOpts };
        // Like a BullMQ job scheduler: the first run at once, then one per interval.
        if (q.definition.mode === "scheduled") tick(q, q.definition.everyMs, q.definition.data);
        pump(q);
      }
    },

    async acquireRate(key, limit) {
      assertRateLimit(limit);
      return limiter.acquire(customRateScope, key, limit);
    },

    async depth(name) {
      return queueState(name).jobs.size;
    },

    async ping() {
      assertOpen();
    },

    close(timeoutMs = defaultCloseTimeoutMs) {
      closing ??= (async () => {
        draining = timeoutMs > 0;
        let pending = 0;
        for (const q of queues.values()) {
          if (q.tick !== undefined) clearTimer(q.tick);
          q.tick = undefined;
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
        log.info({ pendingJobs: pending, inFlight: inFlight.size, draining }, "in-process queue closing");
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
        const summary = dropped > 0 || inFlight.size > 0 ? { droppedPendingJobs: dropped, abandonedInFlight: inFlight.size, timeoutMs } : {};
        (dropped > 0 ? log.warn : log.info).call(log, summary, "in-process queue closed");
      })();
      return closing;
    },
  };
}
