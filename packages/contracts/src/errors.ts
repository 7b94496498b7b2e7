/**
 * The API's error codes and the HTTP status of each, decided here once: the
 * API's ApiError and error handler take the status from this map, clients can
 * switch on `code` alone. A code with a Retry-After means "nothing is wrong
 * with the request: send it again after that many seconds".
 */
import { z } from "zod";

export const errorStatus = {
  /** The request fails its schema (message names each field), or Fastify refused the body as malformed. */
  invalid_request: 400,
  /** A cursor this API did not return. */
  invalid_cursor: 400,
  /** `from` after `to`. */
  invalid_window: 400,
  /** More than 1,000 buckets over the window. */
  too_many_buckets: 400,
  /** A handoff contract's JSON Schema does not compile. */
  invalid_json_schema: 400,
  /** A JSONata expression does not parse. */
  invalid_expression: 400,
  /** Milestone ids duplicated, or `requires` naming an unknown or the same milestone. */
  invalid_milestones: 400,
  /** Missing or unknown API key. */
  unauthenticated: 401,
  /** A valid API key whose scope does not allow the request (an ingest-only key reading, a read-only key writing). */
  forbidden: 403,
  /** Unknown trace, configuration id or route. */
  not_found: 404,
  /** A configuration row for the same scope exists; a trace is asked to be judged before it is scored, or replayed with no task to re-run. */
  conflict: 409,
  /** POST /traces/:id/judge while the project's judges are off (the message says why). */
  judges_off: 409,
  /** An API key sent to a service without CRUX_SECRET_KEY: it could not be encrypted at rest, so nothing was stored. */
  secret_key_missing: 409,
  /** The request body is larger than the API's limit (1 MiB). */
  body_too_large: 413,
  /** A body whose content type the API does not read (it reads application/json). */
  unsupported_media_type: 415,
  /** Anything unexpected; logged as one line. */
  internal: 500,
  /** Postgres is unreachable or the API is still starting: retry after Retry-After. */
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;
export type ErrorStatus = (typeof errorStatus)[ErrorCode];

export const ErrorCode = z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]);

/** Seconds to wait before sending the request again, for the codes that mean "retry later". */
export const errorRetryAfterSeconds: Partial<Record<ErrorCode, number>> = { unavailable: 5 };

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorStatus, code);
}

/** The API's one error body. */
export const ErrorBody = z.object({
  code: ErrorCode,
  message: z.string().describe("What is wrong, for a person; clients switch on `code`"),
  details: z.unknown().optional().describe("Per code: e.g. the failed fields of invalid_request"),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
