import type { AttrValue, Attributes } from "@crux/core";
import { NOT_SPECIFIED } from "../semconv.ts";

/** A non-empty string value; "" and ADK's "<not specified>" count as absent. Numbers are stringified (numeric ids). */
export function str(attrs: Attributes, key: string): string | null {
  const v = attrs[key];
  if (typeof v === "string") return v === "" || v === NOT_SPECIFIED ? null : v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

/** First non-empty string over keys, in order. */
export function firstStr(attrs: Attributes, keys: readonly string[]): string | null {
  for (const key of keys) {
    const v = str(attrs, key);
    if (v !== null) return v;
  }
  return null;
}

/** A non-negative count: numbers, or decimal strings (int64 kept as strings by the decoder). */
export function count(attrs: Attributes, key: string): number | null {
  return toNonNegative(attrs[key]);
}

export function firstCount(attrs: Attributes, keys: readonly string[]): number | null {
  for (const key of keys) {
    const v = toNonNegative(attrs[key]);
    if (v !== null) return v;
  }
  return null;
}

function toNonNegative(v: AttrValue | undefined): number | null {
  if (typeof v === "number") return Number.isFinite(v) && v >= 0 ? v : null;
  if (typeof v === "string" && v !== "") {
    const n = Number(v);
    return Number.isFinite(n) && n >= 0 ? n : null;
  }
  return null;
}

/**
 * An `any`-typed attribute as an object: structured kvlist values as they
 * are, JSON strings parsed. Only called on the rare spans that need it
 * (handoff tool arguments, OpenInference metadata).
 */
export function asObject(v: AttrValue | undefined): Record<string, AttrValue> | null {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return v;
  if (typeof v !== "string" || v.length < 2 || v.charCodeAt(0) !== 123 /* { */) return null;
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, AttrValue>) : null;
  } catch {
    return null;
  }
}

/** A plain string that may arrive JSON-quoted ("\"Triage\"" from some bridges). */
export function unquote(v: string): string {
  if (v.length >= 2 && v.charCodeAt(0) === 34 && v.charCodeAt(v.length - 1) === 34) {
    try {
      const parsed: unknown = JSON.parse(v);
      if (typeof parsed === "string") return parsed;
    } catch {
      return v;
    }
  }
  return v;
}
