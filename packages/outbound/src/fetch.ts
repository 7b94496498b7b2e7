/**
 * A `fetch` for the provider SDKs (Anthropic, OpenAI) that sends through
 * outboundRequest, so a judge's base URL is checked exactly like a webhook's
 * target: on every resolved and connected address. It covers what the SDKs
 * use: a method, headers, a string or byte body, an abort signal; the answer
 * streams back as a standard Response. A refused target rejects like a
 * network failure (a TypeError whose cause is the BlockedTargetError), as
 * the SDKs expect of fetch.
 */
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { outboundRequest, type OutboundPolicy } from "./request.ts";

function bodyBytes(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  throw new TypeError("outbound fetch sends string or byte bodies only");
}

function responseOf(res: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = res.statusCode ?? 0;
  const empty = status === 204 || status === 205 || status === 304;
  if (empty) res.resume();
  return new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? "", headers });
}

export function createOutboundFetch(policy: OutboundPolicy): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = request ? request.url : String(input);
    const method = init?.method ?? request?.method ?? "GET";
    const headers = new Headers(init?.headers ?? request?.headers);
    const body = bodyBytes(init?.body);
    const signal = init?.signal ?? request?.signal ?? null;
    if (signal?.aborted) throw signal.reason;
    if (body !== undefined) headers.set("content-length", String(body.length));
    return new Promise<Response>((resolve, reject) => {
      let req;
      try {
        req = outboundRequest(url, { method, headers: Object.fromEntries(headers.entries()) }, policy);
      } catch (err) {
        return reject(new TypeError("fetch failed", { cause: err }));
      }
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (err) => {
        signal?.removeEventListener("abort", onAbort);
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: err }));
      });
      req.on("response", (res) => {
        res.on("close", () => signal?.removeEventListener("abort", onAbort));
        resolve(responseOf(res));
      });
      req.end(body);
    });
  };
}
