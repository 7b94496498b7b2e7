/**
 * One mapping from failures to the API's error body, decided here for every
 * route: client mistakes are 4xx with a message saying what is wrong, an
 * unreachable database is 503 + Retry-After (retry later, nothing is wrong
 * with the request), anything else is 500. Logs are one bounded line per
 * failure: error class, route, request id and describeStorageError (no SQL
 * text, no bound parameters, no stack).
 */
import { PermanentError } from "@crux/core";
import { describeStorageError, isStorageUnavailable, sqlStateError } from "@crux/db";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ApiError, type ErrorBody } from "./errors.ts";

/** Seconds a client should wait before retrying while the database is unreachable. */
export const unavailableRetryAfterSeconds = 5;

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

export function apiErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  let status = 500;
  let body: ErrorBody = { code: "internal", message: "internal error" };
  const statusCode = (err as { statusCode?: unknown }).statusCode;
  if (err instanceof ApiError) {
    status = err.statusCode;
    body = { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) };
  } else if (err instanceof PermanentError) {
    // Bad cursor (400) or a duplicate configuration scope (409), decided in @crux/db.
    status = err.code === "conflict" ? 409 : 400;
    body = { code: err.code, message: err.message };
  } else if (hasZodFastifySchemaValidationErrors(err)) {
    status = 400;
    const issues = err.validation.map((v) => ({ path: v.instancePath || "", message: v.message }));
    body = {
      code: "invalid_request",
      message: issues.map((i) => `${err.validationContext ?? "request"}${i.path ? ` ${i.path}` : ""}: ${i.message}`).join("; "),
      details: issues,
    };
  } else if (isStorageUnavailable(err)) {
    status = 503;
    body = { code: "unavailable", message: "the database is unreachable; retry later" };
    reply.header("retry-after", String(unavailableRetryAfterSeconds));
    req.log.warn(logContext(err, req), "database unavailable");
  } else if (typeof statusCode === "number" && statusCode >= 400 && statusCode < 500) {
    // Fastify's own client errors: malformed JSON, unsupported media type, body too large.
    status = statusCode;
    body = { code: "invalid_request", message: err.message };
  } else if (/^22/.test(sqlStateError(err)?.code ?? "")) {
    // Data exception: a value the validation layer should have rejected reached Postgres.
    // Still the request's value, so 400, and logged so the missing check gets added.
    status = 400;
    body = { code: "invalid_request", message: "a value in the request cannot be stored or compared by the database" };
    req.log.warn(
      { errorClass: logContext(err, req).errorClass, sqlState: sqlStateError(err)?.code, method: req.method, route: routeOf(req) },
      "request value rejected by the database",
    );
  } else {
    req.log.error(logContext(err, req), "unhandled API error");
  }
  return reply.code(status).send(body);
}
