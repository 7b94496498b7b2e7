/**
 * Building blocks of request schemas. Everything a request carries is checked
 * here, before any query runs: a value Postgres cannot store or compare
 * (U+0000 in text, a time outside the nanosecond range) would otherwise
 * surface as a database error, i.e. a 500 for the client's mistake.
 */
import { z } from "zod";

// Postgres text and jsonb cannot hold U+0000; a query parameter with it is a client error.
const NUL = /\u0000/; // eslint-disable-line no-control-regex -- NUL is the character rejected

/** A non-empty string without U+0000, at most `max` characters. */
export function text(max = 512) {
  return z
    .string()
    .min(1)
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !NUL.test(s), { message: "must not contain a NUL character (U+0000)" });
}

/**
 * A URL Crux sends requests to (a webhook, a judge endpoint): http or https, and no credentials,
 * which would be stored, shown back and logged with the URL (a key has its own sealed field).
 * Checked on the parsed URL, so every spelling a URL parser reads as user:password@ is refused.
 */
export function outboundUrl(max: number) {
  return z
    .url({ protocol: /^https?$/, message: "must be an http or https URL" })
    .max(max)
    .refine((u) => {
      try {
        const parsed = new URL(u);
        return parsed.username === "" && parsed.password === "";
      } catch {
        return false;
      }
    }, "must not carry credentials (user:password@): put a key in its own field");
}

/** Deepest nesting accepted in a free-form JSON value (a JSON Schema): Ajv and the response encoder recurse per level. */
const maxJsonDepth = 64;

/**
 * What is wrong with a free-form JSON value the API stores, or null: a string
 * (or key) with U+0000, or nesting deeper than maxJsonDepth. Iterative, so a
 * 50,000-deep value cannot overflow the stack here.
 */
function jsonValueProblem(value: unknown): string | null {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (typeof v === "string") {
      if (NUL.test(v)) return "must not contain a NUL character (U+0000) in any string";
    } else if (v !== null && typeof v === "object") {
      if (depth >= maxJsonDepth) return `must not be nested deeper than ${maxJsonDepth} levels`;
      for (const [k, inner] of Object.entries(v)) {
        if (NUL.test(k)) return "must not contain a NUL character (U+0000) in any key";
        stack.push({ v: inner, depth: depth + 1 });
      }
    }
  }
  return null;
}

/** A free-form JSON value (checked by jsonValueProblem). */
export const JsonValue = z.unknown().superRefine((v, ctx) => {
  const problem = jsonValueProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** Span times are int64 nanoseconds since 1970: the window must fit in that range. */
const minTimeMs = 0;
const maxTimeMs = 9_223_372_036_854; // 2262-04-11T23:47:16.854Z

// abort: a value that is no date-time at all gets that one message, not also the range check it cannot pass.
export const IsoTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time, e.g. 2026-11-30T12:00:00Z", abort: true }).refine(
  (s) => {
    const ms = Date.parse(s);
    return ms >= minTimeMs && ms <= maxTimeMs;
  },
  { message: "must be between 1970-01-01T00:00:00Z and 2262-04-11T23:47:16Z (times are nanoseconds since 1970 in 64 bits)" },
);

/** Page size 1..max (default 50). */
export function limitParam(max = 500, fallback = 50) {
  return z.coerce.number().int().min(1).max(max).default(fallback);
}

/** Opaque keyset cursor as the previous page returned it (base64url). */
export const cursorParam = z
  .string()
  .max(1024, "is not a cursor this API returned")
  .regex(/^[A-Za-z0-9_-]+$/, "is not a cursor this API returned");

/** `cursor` and `limit` of a paginated list. Strict: an unknown parameter is a 400. */
export const PageQuery = z.strictObject({
  cursor: cursorParam.optional().describe("Opaque nextCursor of the previous page"),
  limit: limitParam(),
});

/** Next page's cursor; null on the last page. */
export const nextCursorField = () => z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page");
