/**
 * One mapping from failures to the API's error body, decided here for every
 * route: each failure gets an error code, and the code's HTTP status and
 * Retry-After come from @crux/contracts (errorStatus, errorRetryAfterSeconds),
 * never from the message. Client mistakes are 4xx with a message saying what
 * is wrong, an unreachable database or a statement cancelled by the statement
 * timeout is `unavailable` (503 + Retry-After: retry later, nothing is wrong
 * with the request), anything else is `internal`.
 * Logs are one bounded line per failure: error class, route, request id and
 * describeStorageError (no SQL text, no bound parameters, no stack).
 */
import { errorRetryAfterSeconds, errorStatus, isErrorCode, type ErrorCode } from "@crux/contracts";
import { PermanentError } from "@crux/core";
import { describeStorageError, isStatementTimedOut, isStorageUnavailable, sqlStateError } from "@crux/db";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ApiError, type ErrorBody } from "./errors.ts";

export function routeOf(req: FastifyRequest): string {
  return req.routeOptions.url ?? "unmatched";
}

function logContext(err: unknown, req: FastifyRequest) {
  const described = describeStorageError(err);
  return {
    errorClass: err instanceof Error ? err.constructor.name : typeof err,
    error: described.message,
    ...(described.sqlState === undefined ? {} : { sqlState: described.sqlState }),
    method: req.method,
    route: routeOf(req),
  };
}

/** Fastify's own client errors by status (malformed JSON is 400, a body over the limit 413, another media type 415). */
function fastifyClientErrorCode(statusCode: number): ErrorCode {
  return statusCode === 413 ? "body_too_large" : statusCode === 415 ? "unsupported_media_type" : "invalid_request";
}

function unsupportedMediaTypeMessage(req: FastifyRequest): string {
  const sent = req.headers["content-type"];
  return `the request body must be JSON: send content-type: application/json${sent ? ` (got ${String(sent).slice(0, 100)})` : ""}`;
}

export function apiErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  let body: ErrorBody = { code: "internal", message: "internal error" };
  const statusCode = (err as { statusCode?: unknown }).statusCode;
  if (err instanceof ApiError) {
    body = { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) };
  } else if (err instanceof PermanentError) {
    // Bad cursor or a duplicate configuration scope, decided in @crux/db; its code names the status.
    body = { code: isErrorCode(err.code) ? err.code : "invalid_request", message: err.message };
  } else if (hasZodFastifySchemaValidationErrors(err)) {
    const issues = err.validation.map((v) => ({ path: v.instancePath || "", message: v.message }));
    body = {
      code: "invalid_request",
      message: issues.map((i) => `${err.validationContext ?? "request"}${i.path ? ` ${i.path}` : ""}: ${i.message}`).join("; "),
      details: issues,
    };
  } else if (isStatementTimedOut(err)) {
    body = {
      code: "unavailable",
      message: "the query ran past the API's statement timeout (CRUX_API_STATEMENT_TIMEOUT_MS); narrow the filters or retry later",
    };
    req.log.warn(logContext(err, req), "statement timed out");
  } else if (isStorageUnavailable(err)) {
    body = { code: "unavailable", message: "the database is unreachable; retry later" };
    req.log.warn(logContext(err, req), "database unavailable");
  } else if (typeof statusCode === "number" && statusCode >= 400 && statusCode < 500) {
    // Fastify's own client errors: malformed JSON, unsupported media type, body too large.
    const code = fastifyClientErrorCode(statusCode);
    body = { code, message: code === "unsupported_media_type" ? unsupportedMediaTypeMessage(req) : err.message };
  } else if (/^22/.test(sqlStateError(err)?.code ?? "")) {
    // Data exception: a value the validation layer should have rejected reached Postgres.
    // Still the request's value, so invalid_request, and logged so the missing check gets added.
    body = { code: "invalid_request", message: "a value in the request cannot be stored or compared by the database" };
    req.log.warn(
      { errorClass: logContext(err, req).errorClass, sqlState: sqlStateError(err)?.code, method: req.method, route: routeOf(req) },
      "request value rejected by the database",
    );
  } else {
    req.log.error(logContext(err, req), "unhandled API error");
  }
  const retryAfter = errorRetryAfterSeconds[body.code];
  if (retryAfter !== undefined) reply.header("retry-after", String(retryAfter));
  return reply.code(errorStatus[body.code]).send(body);
}
