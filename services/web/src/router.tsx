/**
 * A small router over the History API: a page is a path (/runs, /runs/:traceId, ...) and its
 * state lives in the query string (filters, the selected span), so every page and selection is a
 * deep link. Five patterns do not need a routing library.
 */
import { useCallback, useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from "react";

const listeners = new Set<() => void>();
function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener("popstate", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("popstate", listener);
  };
}
const snapshot = () => window.location.pathname + window.location.search;

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (opts.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  for (const l of listeners) l();
}

export interface Location {
  path: string;
  search: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const [path, query = ""] = href.split("?");
  return { path: path ?? "/", search: new URLSearchParams(query) };
}

/** Sets (or with null removes) query parameters of the current page. */
export function useSearchUpdate(): (values: Record<string, string | null>, opts?: { replace?: boolean }) => void {
  return useCallback((values, opts) => {
    const p = new URLSearchParams(window.location.search);
    for (const [k, v] of Object.entries(values)) {
      if (v === null || v === "") p.delete(k);
      else p.set(k, v);
    }
    const q = p.toString();
    navigate(window.location.pathname + (q ? `?${q}` : ""), opts);
  }, []);
}

export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={click} {...rest} />;
}

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Crux`;
  }, [title]);
}
