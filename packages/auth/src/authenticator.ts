/**
 * API-key authentication for ingest and the API, and the one decision of what
 * each key scope may do (docs/security.md). Keys are looked up by hash;
 * positive answers are cached briefly so a busy exporter does not cost a
 * database round trip per request. A revoked key stops working within
 * cacheTtlMs. A key's last use is written at most once per touchIntervalMs per
 * key and process, after the answer, never on the request's path.
 */
import { findActiveApiKey, touchApiKey, type ApiKeyScope, type Database } from "@crux/db";

export interface AuthOptions {
  database: Database;
  /** When false every request is accepted into defaultProjectId (embedded default). */
  required: boolean;
  defaultProjectId: string;
  cacheTtlMs?: number;
  /** Least time between two last-used writes of one key (default one minute). */
  touchIntervalMs?: number;
  now?: () => number;
}

/**
 * What a request asks to do: send traces (the receiver), read the API (GET and
 * HEAD), or change something through it (every other method).
 */
export type Access = "ingest" | "read" | "write";

/** Which accesses each scope grants; the only place that decides it. */
const grants: Record<ApiKeyScope, readonly Access[]> = {
  ingest: ["ingest"],
  read: ["read"],
  full: ["ingest", "read", "write"],
};

/** The access of an API request by its method: reads are GET and HEAD, anything else writes. */
export function apiAccessOf(method: string): Access {
  return method === "GET" || method === "HEAD" ? "read" : "write";
}

/** Why a key of this scope may not do this, or null when it may. */
export function scopeRefusal(scope: ApiKeyScope, access: Access): string | null {
  if (grants[scope].includes(access)) return null;
  const doing = access === "ingest" ? "send traces" : access === "read" ? "read the API" : "change anything through the API";
  const can = scope === "ingest" ? "only send traces" : "only read the API";
  const needed = access === "write" ? "'full'" : `'${access}' or 'full'`;
  return `this API key (scope '${scope}') may ${can}, not ${doing}: use a key with scope ${needed}`;
}

/**
 * What a request presented: a key, nothing, or an Authorization header that
 * carries no key Crux reads (unreadable says what is wrong with it).
 */
export type PresentedKey = string | null | { unreadable: string };

const howToSend = "send 'Authorization: Bearer <key>' or 'x-api-key: <key>'";

/** Reads `Authorization: Bearer <key>` or `x-api-key: <key>` from plain header values; a Bearer key wins. */
export function apiKeyFromHeaders(get: (name: string) => string | undefined): PresentedKey {
  const auth = get("authorization")?.trim();
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  if (m?.[1]) return m[1].trim();
  const key = get("x-api-key")?.trim();
  if (key) return key;
  if (!auth) return null;
  const parts = auth.split(/\s+/);
  if (/^bearer$/i.test(auth)) return { unreadable: `the Authorization header has the Bearer scheme but no key: ${howToSend}` };
  if (parts.length === 1) return { unreadable: `the Authorization header has no scheme: ${howToSend}` };
  return { unreadable: `the Authorization scheme '${parts[0]!.slice(0, 20)}' is not supported: ${howToSend}` };
}

export type AuthResult =
  | { ok: true; projectId: string }
  /** unauthenticated: no key, or not a valid one (401); forbidden: a valid key whose scope does not allow this (403). */
  | { ok: false; failure: "unauthenticated" | "forbidden"; reason: string };

export function createAuthenticator(opts: AuthOptions) {
  const ttl = opts.cacheTtlMs ?? 30_000;
  const touchInterval = opts.touchIntervalMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { projectId: string; keyId: string; scope: ApiKeyScope; at: number }>();
  const lastTouched = new Map<string, number>();
  const MAX_CACHE = 10_000;

  function touch(keyId: string): void {
    const at = now();
    const last = lastTouched.get(keyId);
    if (last !== undefined && at - last < touchInterval) return;
    if (lastTouched.size >= MAX_CACHE) lastTouched.clear();
    lastTouched.set(keyId, at);
    // Bookkeeping only: a failed write (database down, closing) must not fail the request it follows.
    touchApiKey(opts.database, keyId, new Date(at)).catch(() => lastTouched.delete(keyId));
  }

  /** Authenticates the presented key and checks that its scope allows `access`. */
  return async function authenticate(presented: PresentedKey, access: Access): Promise<AuthResult> {
    if (!opts.required) return { ok: true, projectId: opts.defaultProjectId };
    if (presented === null) return { ok: false, failure: "unauthenticated", reason: `missing API key: ${howToSend}` };
    if (typeof presented === "object") return { ok: false, failure: "unauthenticated", reason: presented.unreadable };
    let hit = cache.get(presented);
    if (!hit || now() - hit.at >= ttl) {
      const found = await findActiveApiKey(opts.database, presented);
      if (!found) {
        cache.delete(presented);
        return { ok: false, failure: "unauthenticated", reason: "invalid or revoked API key" };
      }
      if (cache.size >= MAX_CACHE) cache.clear();
      hit = { projectId: found.projectId, keyId: found.id, scope: found.scope, at: now() };
      cache.set(presented, hit);
    }
    touch(hit.keyId);
    const refusal = scopeRefusal(hit.scope, access);
    if (refusal) return { ok: false, failure: "forbidden", reason: refusal };
    return { ok: true, projectId: hit.projectId };
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
