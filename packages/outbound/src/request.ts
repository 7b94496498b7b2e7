/**
 * Every request Crux sends to an address a user configured (webhooks, judge
 * providers) goes through here. The check runs on what the socket connects
 * to: a name is resolved here and each address checked before the connect,
 * so a name that resolves differently between a check and the connect (DNS
 * rebinding) cannot slip past; a literal address is checked before the
 * request; and the connected socket's remote address is checked once more.
 * Each request gets a fresh socket (a pooled one would skip the check), and
 * redirects are never followed (a 3xx is returned as it is).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type ClientRequest, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction, type Socket } from "node:net";
import { refusalOf, type PrivateTargets } from "./address.ts";

export type ResolvedAddress = { address: string; family: number };
/** Hostname to addresses; injectable so tests can point a name anywhere. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundPolicy {
  /** Which non-public addresses may be reached (the operator's decision). */
  privateTargets: PrivateTargets;
  /** Default: the system resolver (getaddrinfo, every address). */
  resolver?: Resolver;
}

/** The target is not one Crux may reach: a permanent failure, never retried. */
export class BlockedTargetError extends Error {
  override readonly name = "BlockedTargetError";
  readonly code = "BLOCKED_TARGET";
}

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

/**
 * Why `url` may never be an outbound target (checked when it is written, and again before each
 * request), or null: only http(s), and no credentials (they would be stored, shown back and logged
 * with the URL; a key goes in the settings' key field, which is stored sealed).
 */
export function outboundUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `unsupported scheme ${parsed.protocol} (http or https only)`;
  if (parsed.username !== "" || parsed.password !== "") return "credentials in the URL are not allowed (user:password@)";
  return null;
}

/** Why a URL's host, when it is a literal IP address, may not be reached; null for a name or an allowed address. */
export function literalTargetProblem(url: string, privateTargets: PrivateTargets): string | null {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return isIP(host) === 0 ? null : refusalOf(host, privateTargets);
}

function guardedLookup(policy: OutboundPolicy): LookupFunction {
  const resolver = policy.resolver ?? defaultResolver;
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        const first = usable[0];
        if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
        // A name with any refused address is refused as a whole: which one the connect would use is not ours to pick.
        for (const a of usable) {
          const why = refusalOf(a.address, policy.privateTargets);
          if (why) return callback(new BlockedTargetError(`${hostname} resolves to ${why}`), "", 0);
        }
        if (options.all) return callback(null, usable as never, 0);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}

export interface OutboundRequestOptions {
  method: string;
  headers: OutgoingHttpHeaders;
}

/**
 * Starts a request to `url` under `policy`. Throws BlockedTargetError at once for a URL that is
 * refused as written; a refused resolved or connected address fails the request with one
 * (its 'error' event). The caller writes the body and ends the request.
 */
export function outboundRequest(url: string, options: OutboundRequestOptions, policy: OutboundPolicy): ClientRequest {
  const problem = outboundUrlProblem(url) ?? literalTargetProblem(url, policy.privateTargets);
  if (problem) throw new BlockedTargetError(problem);
  const parsed = new URL(url);
  const send = parsed.protocol === "https:" ? httpsRequest : httpRequest;
  const req = send(parsed, { method: options.method, headers: options.headers, lookup: guardedLookup(policy), agent: false });
  req.on("socket", (socket: Socket) => {
    const check = () => {
      const remote = socket.remoteAddress;
      const why = remote === undefined ? "no remote address" : refusalOf(remote, policy.privateTargets);
      if (why) req.destroy(new BlockedTargetError(`connected to ${why}`));
    };
    if (socket.remoteAddress !== undefined && !socket.connecting) check();
    else socket.once("connect", check);
  });
  return req;
}
