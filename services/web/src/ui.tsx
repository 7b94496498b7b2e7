/** Shared pieces: loading, error and empty states, badges. Every text is rendered as text. */
import type { ReactNode } from "react";
import { ApiError } from "./api.ts";

export function Loading({ what }: { what: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

export function ErrorState({ error, what, retry }: { error: unknown; what: string; retry?: () => void }) {
  const e = error instanceof ApiError ? error : null;
  const hint =
    e?.status === 0
      ? "Check that Crux is running and reachable, then retry."
      : e?.status === 401
        ? "Your API key was not accepted: sign in again."
        : e?.status === 404
          ? "It does not exist in this project (or was deleted)."
          : e?.status === 503
            ? "The database is unavailable or Crux is starting: retry in a few seconds."
            : e && e.status >= 400 && e.status < 500
              ? "The request was rejected; the message says which field."
              : "Retry; if it keeps failing, the server log has the details.";
  return (
    <div className="state error" role="alert">
      <strong>Could not load {what}.</strong> {e ? `${e.message} (${e.code}, HTTP ${e.status}).` : String(error)} {hint}
      {retry && (
        <button type="button" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}

export function ModeBadge({ mode, source }: { mode: string; source?: string }) {
  return (
    <span className={`badge mode ${source === "judge" ? "judge" : ""}`} title={source ? `${mode} (${source})` : mode}>
      {mode}
    </span>
  );
}

export function OutcomeBadge({ outcome }: { outcome: "success" | "failed" | "unknown" }) {
  return <span className={`badge outcome ${outcome}`}>{outcome}</span>;
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="panel-section" aria-label={title}>
      <header>
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
