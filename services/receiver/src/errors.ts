/**
 * One mapping from ingest failures to transport status (docs/engineering.md §6), used by
 * both the HTTP and the gRPC server. OTLP retry semantics: 400/401/413/415 are
 * final for the client; 429/503 (gRPC UNAVAILABLE) are retried after
 * Retry-After. docs/conventions.md §2.4. Whether a storage failure is permanent or
 * retryable is decided once, in @crux/db (isDataRejected / isStorageUnavailable).
 */
import { OverloadedError, PermanentError } from "@crux/core";
import { describeStorageError, isDataRejected, isStorageUnavailable } from "@crux/db";
import { BadEncodingError, BodyTooLargeError } from "./decompress.ts";

export type FailureKind = "bad_request" | "unauthenticated" | "forbidden" | "too_large" | "unsupported_media_type" | "throttled" | "overloaded" | "unavailable";

/**
 * Why an export failed, as a fixed code (logs and metrics): what the sender
 * sent (invalid_request .. content_encoding), or why the receiver could not
 * take it now (inflight_requests .. internal).
 */
type FailureReason =
  | "invalid_request"
  | "data_rejected"
  | "unauthenticated"
  | "forbidden"
  | "body_too_large"
  | "content_type"
  | "content_encoding"
  | "inflight_requests"
  | "inflight_bytes"
  | "queue_backlog"
  | "starting"
  | "storage_unavailable"
  | "internal";

export interface IngestFailure {
  kind: FailureKind;
  reason: FailureReason;
  /** Sent to the client: says what is wrong, never SQL or internals. */
  message: string;
  /** Set for throttled / overloaded / unavailable (the client retries after it). */
  retryAfterSeconds?: number;
}

/** Too much in flight right now (requests or bytes): 429 + Retry-After, the request itself is fine. */
export class ThrottledError extends OverloadedError {
  constructor(
    readonly reason: "inflight_requests" | "inflight_bytes",
    message: string,
    retryAfterSeconds = 1,
  ) {
    super(message, retryAfterSeconds);
  }
}

/** The receiver listens but is not ready to store (database not reached yet, schema not checked). */
export class NotReadyError extends Error {
  override readonly name = "NotReadyError";
}

const STORAGE_RETRY_AFTER_SECONDS = 5;

export function classifyIngestError(err: unknown): IngestFailure {
  if (err instanceof PermanentError) return { kind: "bad_request", reason: "invalid_request", message: err.message };
  if (err instanceof BodyTooLargeError) return { kind: "too_large", reason: "body_too_large", message: err.message };
  if (err instanceof BadEncodingError) return { kind: "bad_request", reason: "content_encoding", message: err.message };
  if (err instanceof ThrottledError) return { kind: "throttled", reason: err.reason, message: err.message, retryAfterSeconds: err.retryAfterSeconds };
  if (err instanceof OverloadedError) return { kind: "overloaded", reason: "queue_backlog", message: err.message, retryAfterSeconds: err.retryAfterSeconds };
  if (err instanceof NotReadyError) return { kind: "unavailable", reason: "starting", message: err.message, retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS };
  if (isDataRejected(err)) {
    return { kind: "bad_request", reason: "data_rejected", message: `spans could not be stored: ${describeStorageError(err).message}` };
  }
  if (isStorageUnavailable(err)) {
    return {
      kind: "unavailable",
      reason: "storage_unavailable",
      message: "storage is unavailable, retry later",
      retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
    };
  }
  // Unknown: retryable, because dropping spans is worse than a client retry.
  return { kind: "unavailable", reason: "internal", message: "internal error, retry later", retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS };
}

export function httpStatusOf(f: IngestFailure): number {
  switch (f.kind) {
    case "bad_request":
      return 400;
    case "unauthenticated":
      return 401;
    case "forbidden":
      return 403;
    case "too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "throttled":
      return 429;
    case "overloaded":
    case "unavailable":
      return 503;
  }
}
