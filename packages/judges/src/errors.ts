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

const KEYLIKE = /\b(sk-[A-Za-z0-9_-]{8,}|sk-ant-[A-Za-z0-9_-]{8,})\b/g;

/** The message with the key, and anything shaped like a provider key, replaced; bounded in length. */
export function redact(message: string, apiKey: string, max = 400): string {
  let out = message;
  if (apiKey.length >= 4) out = out.split(apiKey).join("[redacted]");
  out = out.replace(KEYLIKE, "[redacted]").replace(/(bearer\s+)[^\s"',]+/gi, "$1[redacted]");
  return out.length > max ? `${out.slice(0, max)}…` : out;
}
