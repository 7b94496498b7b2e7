/** API-key sign-in: the key is checked against the API, then kept in this tab's sessionStorage only. */
import { useState, type FormEvent } from "react";
import { api, ApiError } from "./api.ts";

export function SignIn({ onSignedIn }: { onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const k = key.trim();
    if (k === "") {
      setError("Enter an API key.");
      return;
    }
    setChecking(true);
    setError(null);
    try {
      await api("/traces?limit=1", { key: k });
      onSignedIn(k);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? "That API key was not accepted: it is wrong or has been revoked."
          : err instanceof ApiError
            ? `Could not check the key: ${err.message}`
            : String(err),
      );
    } finally {
      setChecking(false);
    }
  };
  return (
    <form className="signin" onSubmit={(e) => void submit(e)} aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <p>Auth is on: enter an API key of your project (create one with `pnpm crux keys create`). It stays in this browser tab only.</p>
      <label htmlFor="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autoComplete="off"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        aria-invalid={error !== null}
        aria-describedby={error ? "signin-error" : undefined}
      />
      {error && (
        <p id="signin-error" className="field-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={checking}>
        {checking ? "Checking…" : "Sign in"}
      </button>
    </form>
  );
}
