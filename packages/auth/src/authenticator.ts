/**
 * API-key authentication for ingest (and the API, which reuses it). Keys are
 * looked up by hash; positive answers are cached briefly so a busy exporter
 * does not cost a database round trip per request. A revoked key stops
 * working within cacheTtlMs.
 */
import { findProjectByApiKey, type Database } from "@crux/db";

export interface AuthOptions {
  database: Database;
  /** When false every request is accepted into defaultProjectId (embedded default). */
  required: boolean;
  defaultProjectId: string;
  cacheTtlMs?: number;
  now?: () => number;
}

export type AuthResult = { ok: true; projectId: string } | { ok: false; reason: string };

/** Reads `Authorization: Bearer <key>` or `x-api-key: <key>` from plain header values. */
export function apiKeyFromHeaders(get: (name: string) => string | undefined): string | null {
  const auth = get("authorization");
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m?.[1]) return m[1].trim();
  }
  const key = get("x-api-key");
  return key ? key.trim() : null;
}

export function createAuthenticator(opts: AuthOptions) {
  const ttl = opts.cacheTtlMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { projectId: string; at: number }>();
  const MAX_CACHE = 10_000;

  return async function authenticate(key: string | null): Promise<AuthResult> {
    if (!opts.required) return { ok: true, projectId: opts.defaultProjectId };
    if (!key) return { ok: false, reason: "missing API key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'" };
    const hit = cache.get(key);
    if (hit && now() - hit.at < ttl) return { ok: true, projectId: hit.projectId };
    const projectId = await findProjectByApiKey(opts.database, key);
    if (!projectId) {
      cache.delete(key);
      return { ok: false, reason: "invalid or revoked API key" };
    }
    if (cache.size >= MAX_CACHE) cache.clear();
    cache.set(key, { projectId, at: now() });
    return { ok: true, projectId };
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
