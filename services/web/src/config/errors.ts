/**
 * The API's validation errors by the form field they concern. Schema errors carry `details`
 * with a JSON pointer (`/inputPerMTok`, `/milestones/0/check`); the API's own write-time checks
 * name the field at the start of the message (`jsonSchema: ...`, `milestones[0].check: ...`).
 */
import { ApiError } from "../api.ts";

export function fieldErrors(err: unknown, fields?: readonly string[]): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  if (Array.isArray(err.details)) {
    for (const d of err.details as { path?: unknown; message?: unknown }[]) {
      if (typeof d?.path !== "string") continue;
      const field = d.path.replace(/^\//, "").split("/")[0] ?? "";
      out[field] ??= typeof d.message === "string" ? d.message : "invalid";
    }
  }
  if (Object.keys(out).length === 0 && fields) {
    const named = /^([A-Za-z]+)(?:\[\d+\])?(?:\.[A-Za-z]+)?:\s/.exec(err.message);
    if (named && fields.includes(named[1]!)) out[named[1]!] = err.message;
  }
  return out;
}

/** The message to show when no field took it. */
export function formError(err: unknown, errors: Record<string, string>): string | null {
  if (!err || Object.keys(errors).length > 0) return null;
  return err instanceof ApiError ? err.message : String(err);
}
