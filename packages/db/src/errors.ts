/**
 * What a storage failure means, decided once for every service: a
 * connection-level failure (server down, restarting, connection dropped or
 * refused, pool exhausted) is "unavailable" and retryable — the receiver and
 * API answer 503 + Retry-After, the worker retries the job. SQLSTATE classes
 * 22 (data exception) and 23 (integrity violation) mean the data itself can
 * never be written.
 */

/** The Postgres error behind a failure, if any: drivers and the ORM wrap it in `cause`. */
export function sqlStateError(err: unknown): { code: string; message: string } | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return { code, message: (e as Error).message };
  }
  return null;
}

// 08 connection exception, 53 insufficient resources (too many connections),
// 57P01-57P03 admin/crash shutdown and "cannot connect now" (starting up).
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-3])/;
const UNAVAILABLE_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
]);
// node-postgres reports these without a code.
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable|Cannot use a pool after calling end|the database system is (starting up|shutting down)/i;

/** True when the failure is the database being unreachable, not the statement or the data. */
export function isStorageUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE.test(code)) return true;
      if (UNAVAILABLE_ERRNO.has(code)) return true;
    }
    if (e instanceof AggregateError && e.errors.some((inner) => isStorageUnavailable(inner))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

/**
 * True when Postgres cancelled the statement because it ran past the connection's statement
 * timeout (SQLSTATE 57014, which an operator's pg_cancel_backend raises too). Retryable: the same
 * statement may finish on a less busy database.
 */
export function isStatementTimedOut(err: unknown): boolean {
  return sqlStateError(err)?.code === "57014";
}

/** True when the data can never be written as sent (SQLSTATE class 22 or 23). */
export function isDataRejected(err: unknown): boolean {
  const pgError = sqlStateError(err);
  return pgError !== null && /^(22|23)/.test(pgError.code);
}

/** A short, bounded description of a storage failure for logs: no SQL text, no parameters, no stack. */
export function describeStorageError(err: unknown): { message: string; sqlState?: string } {
  const pgError = sqlStateError(err);
  if (pgError) return { message: pgError.message.slice(0, 300), sqlState: pgError.code };
  let e: unknown = err;
  // drizzle wraps the driver error in "Failed query: <sql> params: <values>": report the cause instead.
  while (e && (e as { cause?: unknown }).cause && /^Failed query/.test(String((e as Error).message))) e = (e as { cause?: unknown }).cause;
  const code = (e as { code?: unknown })?.code;
  const message = String((e as Error)?.message ?? e).slice(0, 300);
  return typeof code === "string" ? { message: `${code}: ${message}`.slice(0, 300) } : { message };
}
