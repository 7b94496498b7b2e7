/**
 * How a judge run fails (docs/engineering.md §6). A provider that is down,
 * rate limiting or slow after the bounded retries: JudgeUnavailableError, an
 * OverloadedError the worker retries later. A bad key, an unknown model or a
 * request the provider rejects: PermanentError. Both carry every call made
 * (callsOf), so the calls are recorded even when no verdict is. Messages
 * never hold the API key (redact).
 */
import type { JudgeCallRecord } from "@crux/contracts";
import { OverloadedError, PermanentError } from "@crux/core";

export class JudgeUnavailableError extends OverloadedError {
  constructor(
    message: string,
    retryAfterSeconds: number,
    readonly calls: JudgeCallRecord[],
  ) {
    super(message, retryAfterSeconds);
  }
}

export function judgePermanentError(code: string, message: string, calls: JudgeCallRecord[]): PermanentError {
  return new PermanentError(code, message, { calls });
}

/** The calls a failed run made, from an error thrown by SuiteJudge.run (empty for any other error). */
export function callsOf(err: unknown): JudgeCallRecord[] {
  if (err instanceof JudgeUnavailableError) return err.calls;
  if (err instanceof PermanentError) {
    const calls = (err.details as { calls?: unknown } | undefined)?.calls;
    if (Array.isArray(calls)) return calls as JudgeCallRecord[];
  }
  return [];
}

/** An endpoint as error messages name it: scheme, host and path, never user:password@, a query or a fragment. */
export function endpointOf(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return "(an invalid base URL)";
  }
}

const EXCERPT_CHARS = 160;

/**
 * What a provider's error answer may contribute to a call record: its error type (e.g.
 * "overloaded_error", "rate_limit_exceeded"), which says what to do, and the first characters of
 * its own error message (e.g. which parameter it rejected), which says what to fix. Read only from
 * the structured error object the SDK parsed from a JSON body (OpenAI: {message, type, code};
 * Anthropic: {type: "error", error: {type, message}}); a body that is not such an object (an
 * HTML page, a proxy's text) contributes nothing. Markup and control characters are removed.
 */
export function errorDetailOf(body: unknown): { kind: string | null; excerpt: string | null } {
  if (body === null || typeof body !== "object") return { kind: null, excerpt: null };
  const outer = body as Record<string, unknown>;
  const inner = (outer.error !== null && typeof outer.error === "object" ? outer.error : outer) as Record<string, unknown>;
  const kindOf = (v: unknown) => (typeof v === "string" && /^[A-Za-z0-9_.-]{1,60}$/.test(v) ? v : null);
  const kind = kindOf(inner.type) ?? kindOf(inner.code);
  const raw = typeof inner.message === "string" ? inner.message : null;
  if (raw === null || /<[a-z!/][^>]*>/i.test(raw)) return { kind, excerpt: null };
  const plain = raw
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, " ")
    .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s/@]*@/gi, "[credentials]@")
    .trim();
  return { kind, excerpt: plain === "" ? null : plain.length > EXCERPT_CHARS ? `${plain.slice(0, EXCERPT_CHARS)}…` : plain };
}

const KEYLIKE = /\b(sk-[A-Za-z0-9_-]{8,}|sk-ant-[A-Za-z0-9_-]{8,})\b/g;

/** The message with the key, and anything shaped like a provider key, replaced; bounded in length. */
export function redact(message: string, apiKey: string, max = 400): string {
  let out = message;
  if (apiKey.length >= 4) out = out.split(apiKey).join("[redacted]");
  out = out.replace(KEYLIKE, "[redacted]").replace(/(bearer\s+)[^\s"',]+/gi, "$1[redacted]");
  return out.length > max ? `${out.slice(0, max)}…` : out;
}
