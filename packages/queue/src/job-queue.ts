import type { AppQueueRegistry, EnqueueableName, Payload, QueueName, QueueRegistry, RateLimit } from "./registry.ts";
import type { JobRunnerOptions } from "./job-runner.ts";

/** What a handler is told about the run it is in. */
export interface JobRun {
  /** 1 for the first try; deferrals (JobDeferral, rate limits) do not count. */
  attempt: number;
  /** Total tries the job gets, the first included. */
  attempts: number;
}

export type JobHandler<P> = (payload: P, run: JobRun) => Promise<void>;

/** One handler per queue a process runs, typed from the registry. */
export type JobHandlers<R extends QueueRegistry = AppQueueRegistry> = { readonly [N in QueueName<R>]?: JobHandler<Payload<N, R>> };

export interface StartOptions<R extends QueueRegistry = AppQueueRegistry> extends JobRunnerOptions {
  /** Handlers run at once per queue in this process (default 1). */
  concurrency?: { readonly [N in QueueName<R>]?: number };
}

/** Debounced queues need the quiet period of each enqueue; the other modes start at once unless told otherwise. */
type EnqueueOptions<R extends QueueRegistry, N extends QueueName<R>> = R[N]["mode"] extends "debounced"
  ? [opts: { delayMs: number }]
  : [opts?: { delayMs?: number }];

/**
 * Thrown by a handler that cannot run the job now for a reason other than a
 * failure (e.g. its project already holds its share of the worker's slots):
 * the job goes back to the queue, delayed by delayMs, and the attempt is not
 * counted. Both adapters implement it; rate-limited queues use it too.
 */
export class JobDeferral extends Error {
  override readonly name = "JobDeferral";
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
  }
}

export function isJobDeferral(err: unknown): err is JobDeferral {
  return err instanceof JobDeferral;
}

/**
 * The contract both adapters implement (BullMQ on Redis, and in-process for
 * the embedded default). test/contract.int.test.ts runs against both. Typed
 * from the registry the adapter was created with (default: the app's).
 */
export interface JobQueue<R extends QueueRegistry = AppQueueRegistry> {
  readonly kind: "bullmq" | "in-process";
  /**
   * Enqueues one job under the key its queue's definition builds from the
   * payload, with the queue's mode (registry.ts, QueueMode). Rejects fast when
   * the backend is unreachable or saturated (OverloadedError), so the caller
   * can fall back. An invalid payload rejects with a PermanentError (code
   * "invalid_payload"); a scheduled queue cannot be enqueued to.
   */
  enqueue<N extends EnqueueableName<R>>(name: N, payload: Payload<N, R>, ...opts: EnqueueOptions<R, N>): Promise<void>;
  /** Same as enqueue for many payloads of one queue, in one round trip; all payloads are validated before any is enqueued. */
  enqueueMany<N extends EnqueueableName<R>>(name: N, payloads: readonly Payload<N, R>[], ...opts: EnqueueOptions<R, N>): Promise<void>;
  /**
   * Starts processing every queue in `handlers` (each once per instance;
   * scheduled queues start their schedule). Every run goes through one job
   * runner (job-runner.ts): the payload is parsed with the registry schema; an
   * invalid payload or a thrown PermanentError fails the job without retry;
   * any other error retries with the queue's exponential backoff until
   * attempts run out; a thrown JobDeferral, or a rate limit reached, puts the
   * job back (delayed, attempt not counted). Each outcome is logged and told
   * to `opts.onOutcome`.
   */
  start(handlers: JobHandlers<R>, opts?: StartOptions<R>): void;
  /**
   * Takes one use of `key` in its current fixed window of `limit` (windows start at multiples of
   * windowMs), with the counter the rate-limited queues use: shared by every process of the backend
   * (BullMQ: a Redis counter under the prefix; in-process: this process). Resolves to 0 when the use
   * is allowed, else to the ms until the window ends (a refused use counts against no later window). For limits a handler
   * applies itself, e.g. the judges' calls per provider endpoint; keys do not meet the queues' own.
   */
  acquireRate(key: string, limit: RateLimit): Promise<number>;
  /** Jobs not yet finished: waiting + delayed + active (backpressure signal). */
  depth(name: QueueName<R>): Promise<number>;
  /** Resolves when the backend answers; rejects fast otherwise. */
  ping(): Promise<void>;
  /** Stop taking new jobs, let in-flight jobs finish (bounded by timeoutMs), close connections. Safe to call twice. */
  close(timeoutMs?: number): Promise<void>;
}

export const defaultCloseTimeoutMs = 10_000;

/** Thrown by enqueue/start after close() was called. */
export class QueueClosedError extends Error {
  override readonly name = "QueueClosedError";
  constructor(kind: JobQueue["kind"]) {
    super(`${kind} job queue is closed`);
  }
}

export function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Checks a start() call before either adapter acts on it: known queues, positive integer concurrency. */
export function checkStart<R extends QueueRegistry>(registry: R, handlers: JobHandlers<R>, opts: StartOptions<R> | undefined): QueueName<R>[] {
  const names = Object.keys(handlers) as QueueName<R>[];
  for (const name of names) {
    if (!Object.hasOwn(registry, name)) throw new Error(`unknown queue "${name}"`);
    if (typeof handlers[name] !== "function") throw new TypeError(`the handler of "${name}" is not a function`);
    const concurrency = opts?.concurrency?.[name] ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency of "${name}" must be a positive integer, got ${concurrency}`);
    }
  }
  for (const name of Object.keys(opts?.concurrency ?? {})) {
    if (!Object.hasOwn(handlers, name)) throw new Error(`concurrency given for "${name}", which has no handler`);
  }
  return names;
}
