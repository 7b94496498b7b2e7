/**
 * One mapping from ingest failures to transport status (habits.md §5), used by
 * both the HTTP and the gRPC server. OTLP retry semantics: 400/401/413/415 are
 * final for the client; 429/503 (gRPC UNAVAILABLE) are retried after
 * Retry-After. conventions.md §1.4.
 */
import { OverloadedError, PermanentError } from "@crux/core";
import { BadEncodingError, BodyTooLargeError } from "./decompress.ts";

export type IngestFailure =
  | { kind: "bad_request"; message: string }
  | { kind: "unauthenticated"; message: string }
  | { kind: "too_large"; message: string }
  | { kind: "unsupported_media_type"; message: string }
  | { kind: "overloaded"; message: string; retryAfterSeconds: number; throttled: boolean }
  | { kind: "unavailable"; message: string; retryAfterSeconds: number };

// SQLSTATE classes that mean "this data can never be written" (22 data
// exception, 23 integrity violation); anything else from storage is treated
// as transient, because dropping spans is worse than a client retry.
const PERMANENT_SQLSTATE = /^(22|23)/;

export function classifyIngestError(err: unknown): IngestFailure {
  if (err instanceof PermanentError) return { kind: "bad_request", message: err.message };
  if (err instanceof BodyTooLargeError) return { kind: "too_large", message: err.message };
  if (err instanceof BadEncodingError) return { kind: "bad_request", message: err.message };
  if (err instanceof OverloadedError) {
    return { kind: "overloaded", message: err.message, retryAfterSeconds: err.retryAfterSeconds, throttled: /concurrent/.test(err.message) };
  }
  const pgError = sqlStateError(err);
  if (pgError && PERMANENT_SQLSTATE.test(pgError.code)) {
    return { kind: "bad_request", message: `spans could not be stored: ${pgError.message}` };
  }
  return { kind: "unavailable", message: "storage is unavailable, retry later", retryAfterSeconds: 5 };
}

export function httpStatusOf(f: IngestFailure): number {
  switch (f.kind) {
    case "bad_request":
      return 400;
    case "unauthenticated":
      return 401;
    case "too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "overloaded":
      return f.throttled ? 429 : 503;
    case "unavailable":
      return 503;
  }
}

/** The Postgres error behind a failure, if any: drivers and the ORM wrap it in `cause`. */
export function sqlStateError(err: unknown): { code: string; message: string } | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return { code, message: (e as Error).message };
  }
  return null;
}

/** A short, bounded description of a failure for logs (no SQL text or parameters). */
export function describeError(err: unknown): { message: string; sqlState?: string } {
  const pgError = sqlStateError(err);
  if (pgError) return { message: pgError.message.slice(0, 500), sqlState: pgError.code };
  return { message: String((err as Error)?.message ?? err).slice(0, 500) };
}
