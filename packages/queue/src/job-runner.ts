/**
 * The one wrapper every job run of either adapter goes through: parse the
 * payload, hold it to its queue's rate limit, run the handler, then classify,
 * time and log the outcome. Adapters only map the result onto their backend
 * (BullMQ: return / DelayedError / throw / UnrecoverableError; in-process:
 * the same transitions in memory).
 */
import { isPermanent } from "@crux/core";
import type { Logger } from "pino";
import { describeError, isJobDeferral, type JobHandler, type JobRun } from "./job-queue.ts";
import { jobKeyOf, parsePayload, type AnyQueueDefinition, type QueueRegistry, type RateLimit } from "./registry.ts";

/**
 * completed; deferred (back to the queue, attempt not counted: JobDeferral or
 * a rate limit); retry (failed, another attempt follows after backoff);
 * failed-permanent (invalid payload or PermanentError: never retried);
 * failed-exhausted (the last attempt failed).
 */
export type JobOutcome = "completed" | "deferred" | "retry" | "failed-permanent" | "failed-exhausted";

export interface JobOutcomeEvent {
  readonly queue: string;
  /** Undefined only when the payload did not parse (the key is built from it). */
  readonly key: string | undefined;
  readonly outcome: JobOutcome;
  readonly attempt: number;
  readonly attempts: number;
  readonly durationMs: number;
}

export interface JobRunnerOptions {
  /** Told every run's outcome (the worker's metrics). Must not throw. */
  onOutcome?: (event: JobOutcomeEvent) => void;
  /**
   * The message a failure leaves with (into the log and Redis). Default
   * `name: message`; the worker passes one that strips SQL text and bound
   * parameters, which the queue cannot know about.
   */
  describeFailure?: (err: unknown) => string;
}

export type JobResult =
  | { readonly outcome: "completed" }
  | { readonly outcome: "deferred"; readonly delayMs: number }
  | { readonly outcome: "retry" | "failed-permanent" | "failed-exhausted"; readonly message: string };

/** Counts runs per key and window; the BullMQ one is a Redis counter shared by every process. */
export interface RateLimiter {
  /** Takes one run of `key`'s current window: 0 when allowed, else ms until the next window. */
  acquire(queue: string, key: string, limit: RateLimit): Promise<number>;
}

/** The limiter scope of JobQueue.acquireRate's keys, apart from every queue's (queue names hold a dot). */
export const customRateScope = "limit";

export function windowOf(limit: RateLimit, now: number): { index: number; endsInMs: number } {
  const index = Math.floor(now / limit.windowMs);
  return { index, endsInMs: (index + 1) * limit.windowMs - now };
}

export interface JobRunContext {
  readonly registry: QueueRegistry;
  readonly name: string;
  readonly data: unknown;
  readonly run: JobRun;
  readonly handler: JobHandler<never>;
  readonly limiter: RateLimiter;
  readonly log: Logger;
  readonly options: JobRunnerOptions | undefined;
  /** Asked when a run fails with attempts left; false makes it the last (the in-process queue while draining). */
  readonly mayRetry?: () => boolean;
}

export async function runJob(ctx: JobRunContext): Promise<JobResult> {
  const startedAt = performance.now();
  const describe = ctx.options?.describeFailure ?? describeError;
  let key: string | undefined;
  let result: JobResult;
  let error: unknown;
  try {
    const definition: AnyQueueDefinition = ctx.registry[ctx.name]!;
    const payload = parsePayload(ctx.registry, ctx.name, ctx.data);
    key = jobKeyOf(definition, ctx.name, payload);
    const waitMs = definition.mode === "rate-limited" ? await ctx.limiter.acquire(ctx.name, key, definition.rateLimit) : 0;
    if (waitMs > 0) {
      result = { outcome: "deferred", delayMs: waitMs };
    } else {
      await (ctx.handler as JobHandler<unknown>)(payload, ctx.run);
      result = { outcome: "completed" };
    }
  } catch (err) {
    error = err;
    if (isJobDeferral(err)) result = { outcome: "deferred", delayMs: err.delayMs };
    else if (isPermanent(err)) result = { outcome: "failed-permanent", message: `${err.code}: ${err.message}` };
    else {
      const exhausted = ctx.run.attempt >= ctx.run.attempts || ctx.mayRetry?.() === false;
      result = { outcome: exhausted ? "failed-exhausted" : "retry", message: describe(err) };
    }
  }
  const event: JobOutcomeEvent = {
    queue: ctx.name,
    key,
    outcome: result.outcome,
    attempt: ctx.run.attempt,
    attempts: ctx.run.attempts,
    durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
  };
  logOutcome(ctx.log, event, result, error);
  try {
    ctx.options?.onOutcome?.(event);
  } catch (hookError) {
    ctx.log.error({ queue: ctx.name, error: describeError(hookError) }, "job outcome hook threw");
  }
  return result;
}

// Successes and deferrals are routine (debug); the service logs its own line per job.
function logOutcome(log: Logger, event: JobOutcomeEvent, result: JobResult, error: unknown): void {
  switch (result.outcome) {
    case "completed":
      log.debug(event, "job completed");
      return;
    case "deferred":
      log.debug({ ...event, delayMs: result.delayMs, reason: error instanceof Error ? error.message : "rate limit" }, "job deferred");
      return;
    case "retry":
      log.warn({ ...event, error: result.message }, "job failed; will retry");
      return;
    case "failed-permanent":
    case "failed-exhausted":
      log.error({ ...event, error: result.message }, "job failed");
  }
}
