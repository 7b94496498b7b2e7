import type { Payload, QueueName } from "./registry.ts";

/** Structured log sink; adapters log lifecycle and failures, never per job success. */
export type QueueLog = (msg: string, extra?: object) => void;

/** What a handler is told about the run it is in. */
export interface JobRun {
  /** 1 for the first try; deferrals (JobDeferral) do not count. */
  attempt: number;
  /** Total tries the job gets, the first included. */
  attempts: number;
}

export type JobHandler<N extends QueueName> = (payload: Payload<N>, run: JobRun) => Promise<void>;

/**
 * Thrown by a handler that cannot run the job now for a reason other than a
 * failure (e.g. its project already holds its share of the worker's slots):
 * the job goes back to the queue, delayed by delayMs, and the attempt is not
 * counted. Both adapters implement it.
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
 * the embedded default). test/contract.int.test.ts runs against both.
 */
export interface JobQueue {
  readonly kind: "bullmq" | "in-process";
  /**
   * Debounced enqueue: at most one pending job per key; a new enqueue with the
   * same key before it runs pushes its run time to now+delayMs and replaces
   * its payload (continuous debounce). A job already running is not
   * interrupted; a re-enqueue during a run schedules one more run (latest
   * payload) delayMs after it finishes. Rejects fast when the backend is
   * unreachable or saturated, so the caller can fall back. An invalid payload
   * rejects with a PermanentError (code "invalid_payload").
   */
  enqueue<N extends QueueName>(name: N, payload: Payload<N>, opts: { key: string; delayMs: number }): Promise<void>;
  /** Same as enqueue for many keys of one queue, in one round trip; all payloads are validated before any is enqueued. */
  enqueueMany<N extends QueueName>(name: N, jobs: readonly { payload: Payload<N>; key: string }[], opts: { delayMs: number }): Promise<void>;
  /**
   * Start processing `name` (once per queue per instance). The payload is
   * parsed with the registry schema first; an invalid payload or a thrown
   * PermanentError fails the job without retry; any other error retries with
   * the queue's exponential backoff until attempts run out; a thrown
   * JobDeferral puts the job back (delayed, attempt not counted).
   */
  process<N extends QueueName>(name: N, handler: JobHandler<N>, opts: { concurrency: number }): void;
  /** Jobs not yet finished: waiting + delayed + active (backpressure signal). */
  depth(name: QueueName): Promise<number>;
  /** Resolves when the backend answers; rejects fast otherwise. */
  ping(): Promise<void>;
  /** Stop taking new jobs, let in-flight jobs finish (bounded by timeoutMs), close connections. Safe to call twice. */
  close(timeoutMs?: number): Promise<void>;
}

export const defaultCloseTimeoutMs = 10_000;

/** Thrown by enqueue/process after close() was called. */
export class QueueClosedError extends Error {
  override readonly name = "QueueClosedError";
  constructor(kind: JobQueue["kind"]) {
    super(`${kind} job queue is closed`);
  }
}

export function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
