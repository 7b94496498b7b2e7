import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isPrivateAddress } from "./address.ts";
import { parseRetryAfter } from "./retry.ts";
import { signWebhook } from "./signing.ts";

export type ResolvedAddress = { address: string; family: number };
/** Hostname to addresses; injectable so tests can point a name anywhere. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

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
  /** The first maxResponseBytes of the response body, as UTF-8. */
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
  allowPrivateTargets?: boolean;
  resolver?: Resolver;
  now?: () => number;
};

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

class BlockedTargetError extends Error {}

/**
 * The address check runs here, on what the socket will connect to, so a name
 * that resolves differently between a check and the connect (DNS rebinding)
 * cannot slip past. A name with any private address is refused as a whole.
 */
function guardedLookup(resolver: Resolver, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        const first = usable[0];
        if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
        const privateOne = usable.find((a) => isPrivateAddress(a.address));
        if (!allowPrivate && privateOne !== undefined) {
          return callback(new BlockedTargetError(`${hostname} resolves to private address ${privateOne.address}`), "", 0);
        }
        if (options.all) return callback(null, usable as never, 0);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}

function classifyNetworkError(err: NodeJS.ErrnoException): FailureKind {
  if (err instanceof BlockedTargetError) return "blocked_target";
  if (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN") return "dns";
  if (err.code === "ECONNREFUSED" || err.code === "EHOSTUNREACH" || err.code === "ENETUNREACH") return "connect";
  return "network";
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

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return fail("invalid_url", `not a URL: ${request.url}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return fail("invalid_url", `unsupported scheme ${url.protocol}`);
  if (url.username !== "" || url.password !== "") return fail("invalid_url", "credentials in the URL are not allowed");
  const allowPrivate = options.allowPrivateTargets === true;
  // A literal IP never goes through lookup, so it is checked here.
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0 && !allowPrivate && isPrivateAddress(host)) return fail("blocked_target", `${host} is a private address`);

  const body = JSON.stringify(request.payload);
  const headers = {
    "content-type": "application/json",
    "user-agent": "crux-webhooks",
    ...signWebhook(request.secret, { id: request.id, timestamp: request.timestamp ?? new Date(now()), body }),
  };
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;

  return new Promise<DeliveryAttempt>((resolve) => {
    let settled = false;
    const finish = (attempt: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(attempt);
    };
    const req = send(url, {
      method: "POST",
      headers: { ...headers, "content-length": Buffer.byteLength(body) },
      lookup: guardedLookup(options.resolver ?? defaultResolver, allowPrivate),
      agent: false, // a fresh socket each time: a pooled one would skip the address check
    });
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(() => finish(fail("timeout", `no complete response within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => finish(fail(classifyNetworkError(err), err.message)));
    req.on("response", (res: IncomingMessage) => {
      readLimited(res, maxBytes).then(
        ({ text, truncated }) => {
          const status = res.statusCode ?? 0;
          const header = res.headers["retry-after"];
          const record = {
            status,
            responseExcerpt: text,
            responseTruncated: truncated,
            retryAfterMs: parseRetryAfter(Array.isArray(header) ? header[0] : header, now()),
            durationMs: performance.now() - started,
          };
          if (status >= 200 && status < 300) return finish({ ...record, ok: true, failure: null });
          if (status >= 300 && status < 400) {
            return finish({
              ...record,
              ok: false,
              failure: { kind: "redirect", message: `redirect (${status}) to ${res.headers.location ?? "nowhere"} not followed` },
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
