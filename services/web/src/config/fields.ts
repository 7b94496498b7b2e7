/**
 * The fields of a configuration form and how a row becomes form values and back. Values the
 * browser cannot turn into the API's type are sent as typed (a number field's "abc" stays a
 * string) so the API's own validation names the field; only JSON that does not parse is
 * refused here, since there is nothing to send.
 */
type FieldKind = "text" | "optionalText" | "number" | "optionalNumber" | "list" | "json" | "boolean";

export interface FieldSpec {
  key: string;
  label: string;
  kind: FieldKind;
  hint?: string;
}

export type FormValues = Record<string, string | boolean>;

export function toForm(fields: readonly FieldSpec[], item: Record<string, unknown> | null): FormValues {
  const out: FormValues = {};
  for (const f of fields) {
    const v = item?.[f.key];
    if (f.kind === "boolean") out[f.key] = v === true;
    else if (v === null || v === undefined) out[f.key] = "";
    else if (f.kind === "list" && Array.isArray(v)) out[f.key] = v.join(", ");
    else if (f.kind === "json") out[f.key] = JSON.stringify(v, null, 2);
    else out[f.key] = String(v);
  }
  return out;
}

export class JsonFieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const number = (s: string): unknown => (s.trim() === "" || Number.isNaN(Number(s)) ? s : Number(s));

export function fromForm(fields: readonly FieldSpec[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.key];
    if (f.kind === "boolean") {
      out[f.key] = v === true;
      continue;
    }
    const s = typeof v === "string" ? v : "";
    const blank = s.trim() === "";
    switch (f.kind) {
      case "text":
        out[f.key] = s;
        break;
      case "optionalText":
        out[f.key] = blank ? null : s.trim();
        break;
      case "number":
        out[f.key] = number(s);
        break;
      case "optionalNumber":
        out[f.key] = blank ? null : number(s);
        break;
      case "list":
        out[f.key] = blank
          ? null
          : s
              .split(/[,\n]/)
              .map((x) => x.trim())
              .filter((x) => x !== "");
        break;
      case "json":
        if (blank) out[f.key] = null;
        else {
          try {
            out[f.key] = JSON.parse(s);
          } catch (err) {
            throw new JsonFieldError(f.key, `not valid JSON: ${(err as Error).message}`);
          }
        }
        break;
    }
  }
  return out;
}

/** A cell's text: lists joined, objects as JSON, nothing as a dash. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "–";
  if (Array.isArray(v) && v.every((x) => typeof x !== "object")) return v.join(", ");
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}
