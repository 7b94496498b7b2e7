/** Canonical JSON: object keys sorted at every depth, so equal arguments give equal strings. */
import type { AttrValue } from "../span.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value as Json));
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value).sort()) {
      const v = value[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Parse a string that holds a JSON object or array; other strings stay strings. */
export function parseMaybeJson(value: AttrValue | undefined): AttrValue | undefined {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return value;
  try {
    return JSON.parse(trimmed) as AttrValue;
  } catch {
    return value;
  }
}

/**
 * Canonical form of tool arguments: JSON (string or structured) re-serialized
 * with sorted keys; a non-JSON string is kept trimmed; empty → null.
 */
export function canonicalArgs(value: AttrValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  const parsed = parseMaybeJson(value);
  if (typeof parsed === "string") {
    const trimmed = parsed.trim();
    return trimmed === "" ? null : trimmed;
  }
  return canonicalJson(parsed);
}
