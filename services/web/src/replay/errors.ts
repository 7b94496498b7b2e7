/**
 * The replay API's refusals by the form field they concern: schema errors carry a JSON pointer
 * (`/corrections/1/output`, `/trials`), the API's own checks name the field at the start of the
 * message (`corrections[0].agent: …`, `runnerId: …`), and two name none: no runner (the runner
 * field) and the run cap (the trials, which multiply the runs). Fields: `corrections`,
 * `correction:<i>`, `trials`, `runner`.
 */
import { ApiError } from "../api.ts";

function fieldOfPath(path: string): string | null {
  const parts = path.replace(/^\//, "").split("/");
  if (parts[0] === "corrections") return parts[1] !== undefined && /^\d+$/.test(parts[1]) ? `correction:${parts[1]}` : "corrections";
  if (parts[0] === "trials") return "trials";
  if (parts[0] === "runnerId") return "runner";
  return null;
}

export function replayFieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  if (Array.isArray(err.details)) {
    for (const d of err.details as { path?: unknown; message?: unknown }[]) {
      const field = typeof d?.path === "string" ? fieldOfPath(d.path) : null;
      if (field === null) continue;
      const message = typeof d.message === "string" ? d.message : "invalid";
      out[field] = out[field] ? `${out[field]}; ${message}` : message;
    }
    if (Object.keys(out).length > 0) return out;
  }
  const named = /^corrections\[(\d+)\]\.\w+:\s/.exec(err.message);
  if (named) return { [`correction:${named[1]}`]: err.message };
  if (/^runnerId:\s/.test(err.message) || /has no runner/.test(err.message)) return { runner: err.message };
  if (/the replay would dispatch \d+ runs/.test(err.message)) return { trials: err.message };
  return {};
}
