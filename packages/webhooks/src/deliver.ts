import type { IncomingMessage } from "node:http";
import { BlockedTargetError, outboundRequest, outboundUrlProblem, type PrivateTargets, type Resolver } from "@crux/outbound";
import { parseRetryAfter } from "./retry.ts";
import { signWebhook } from "./signing.ts";

export type FailureKind =
  | "http_status" // the receiver answered, not 2xx
  | "redirect" // a 3xx: never followed, the target must be the configured URL
  | "blocked_target" // resolves to a private address (SSRF)
  | "invalid_url"
  | "timeout"
  | "dns"
  | "connect"
  | "network";

export type DeliveryAttempt = {
  status: number | null;
  durationMs: number;
  /**
   * Of a non-2xx answer only: the receiver's own words about what it refused (e.g. "invalid
   * signature"), so the project can fix its receiver. At most EXCERPT_CHARS characters of text,
   * control characters removed; never an HTML page, never a 2xx body (nothing to fix there).
   */
  responseExcerpt: string;
  responseTruncated: boolean;
  /** From a Retry-After header, in ms. */
  retryAfterMs: number | null;
} & ({ ok: true; failure: null } | { ok: false; failure: { kind: FailureKind; message: string } });

export type DeliveryRequest = {
  url: string;
  /** The signing secret; during a rotation's overlap the new and the old one (the new first). */
  secret: string | readonly string[];
  /** The message id, the same on every retry so receivers can deduplicate. */
  id: string;
  payload: unknown;
  timestamp?: Date;
};

export type DeliveryOptions = {
  /** The whole attempt: connect, send, and read the response. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Which non-public targets this webhook may reach: the operator's allowance where the webhook opted in, else none. */
  privateTargets?: PrivateTargets;
  resolver?: Resolver;
  now?: () => number;
};

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024;
const EXCERPT_CHARS = 200;

function classifyNetworkError(err: NodeJS.ErrnoException): FailureKind {
  if (err instanceof BlockedTargetError) return "blocked_target";
  if (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN") return "dns";
  if (err.code === "ECONNREFUSED" || err.code === "EHOSTUNREACH" || err.code === "ENETUNREACH") return "connect";
  return "network";
}

/** The excerpt kept of a refused delivery's answer (see DeliveryAttempt.responseExcerpt). */
function excerptOf(text: string, contentType: string | undefined): { excerpt: string; cut: boolean } {
  if (/html|xml/i.test(contentType ?? "") || /^\s*</.test(text)) return { excerpt: "", cut: text.length > 0 };
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, " ").trim();
  return plain.length > EXCERPT_CHARS ? { excerpt: `${plain.slice(0, EXCERPT_CHARS)}…`, cut: true } : { excerpt: plain, cut: false };
}

/** One signed JSON POST to request.url. Never throws: every outcome is an attempt record. */
export async function deliverWebhook(request: DeliveryRequest, options: DeliveryOptions = {}): Promise<DeliveryAttempt> {
  const now = options.now ?? Date.now;
  const started = performance.now();
  const base = { status: null, responseExcerpt: "", responseTruncated: false, retryAfterMs: null };
  const fail = (kind: FailureKind, message: string): DeliveryAttempt => ({
    ...base,
    ok: false,
    failure: { kind, message },
    durationMs: performance.now() - started,
  });

  const problem = outboundUrlProblem(request.url);
  if (problem) return fail("invalid_url", problem);
  const policy = { privateTargets: options.privateTargets ?? "none", ...(options.resolver ? { resolver: options.resolver } : {}) };

  const body = JSON.stringify(request.payload);
  const headers = {
    "content-type": "application/json",
    "user-agent": "crux-webhooks",
    ...signWebhook(request.secret, { id: request.id, timestamp: request.timestamp ?? new Date(now()), body }),
  };
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return new Promise<DeliveryAttempt>((resolve) => {
    let settled = false;
    const finish = (attempt: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(attempt);
    };
    let req: ReturnType<typeof outboundRequest>;
    try {
      req = outboundRequest(request.url, { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) } }, policy);
    } catch (err) {
      settled = true;
      return resolve(fail("blocked_target", (err as Error).message));
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(() => finish(fail("timeout", `no complete response within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => finish(fail(classifyNetworkError(err), err.message)));
    req.on("response", (res: IncomingMessage) => {
      readLimited(res, maxBytes).then(
        ({ text, truncated }) => {
          const status = res.statusCode ?? 0;
          const header = res.headers["retry-after"];
          const kept = status >= 200 && status < 300 ? { excerpt: "", cut: false } : excerptOf(text, res.headers["content-type"]);
          const record = {
            status,
            responseExcerpt: kept.excerpt,
            responseTruncated: truncated || kept.cut,
            retryAfterMs: parseRetryAfter(Array.isArray(header) ? header[0] : header, now()),
            durationMs: performance.now() - started,
          };
          if (status >= 200 && status < 300) return finish({ ...record, ok: true, failure: null });
          if (status >= 300 && status < 400) {
            return finish({
              ...record,
              ok: false,
              // Where it pointed is not repeated: a Location can carry credentials or internal names.
              failure: { kind: "redirect", message: `redirect (${status}) not followed: the target must be the configured URL` },
            });
          }
          finish({ ...record, ok: false, failure: { kind: "http_status", message: `receiver answered ${status}` } });
        },
        (err: NodeJS.ErrnoException) => finish(fail(classifyNetworkError(err), err.message)),
      );
    });
    req.end(body);
  });
}

/** Reads at most maxBytes and then stops: a receiver cannot make us buffer an endless body. */
function readLimited(res: IncomingMessage, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (truncated: boolean) => {
      res.removeAllListeners("data");
      resolve({ text: Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8"), truncated });
    };
    res.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        done(true);
        res.destroy();
      }
    });
    res.on("end", () => done(false));
    res.on("error", reject);
  });
}
