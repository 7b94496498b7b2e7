/**
 * The API client: same origin, the key (when auth is on) from this tab's sessionStorage only,
 * sent as `Authorization: Bearer`. Errors keep the API's { code, message } so a page can say what
 * failed.
 */
const keyStorage = "crux.apiKey";

export function storedKey(): string | null {
  return sessionStorage.getItem(keyStorage);
}
export function storeKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(keyStorage);
  else sessionStorage.setItem(keyStorage, key);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Called when a request is answered 401: the app drops the key and shows the sign-in. */
let onUnauthenticated: () => void = () => {};
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

export async function api<T>(path: string, init: { method?: string; body?: unknown; key?: string | null; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const key = init.key !== undefined ? init.key : storedKey();
  if (key) headers.authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path.startsWith("/api/") ? path : `/api/v1${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, "network", "Crux did not answer: is it running, and is this the right address?");
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let body: unknown;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    throw new ApiError(res.status, "bad_response", `unexpected answer (${res.status}) from ${path}`);
  }
  if (!res.ok) {
    const e = (body ?? {}) as { code?: string; message?: string; details?: unknown };
    if (res.status === 401 && init.key === undefined) onUnauthenticated();
    throw new ApiError(res.status, e.code ?? "error", e.message ?? `${res.status} from ${path}`, e.details);
  }
  return body as T;
}

/** A query string from the given values, leaving out empty ones. */
export function qs(values: Record<string, string | number | boolean | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s === "" ? "" : `?${s}`;
}
