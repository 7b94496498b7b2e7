/**
 * Failure kinds, decided once (docs/engineering.md §6). A PermanentError means "retrying
 * the same input will fail the same way": the receiver maps it to 400 or a
 * partial success, the worker to an unrecoverable job. Anything else thrown is
 * retryable: the receiver answers 503 + Retry-After, the worker retries with
 * backoff.
 */
export class PermanentError extends Error {
  override readonly name = "PermanentError";
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** A dependency is saturated or down; the caller should retry after retryAfterSeconds. */
export class OverloadedError extends Error {
  override readonly name = "OverloadedError";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export function isPermanent(err: unknown): err is PermanentError {
  return err instanceof PermanentError;
}

export function assertNever(value: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
