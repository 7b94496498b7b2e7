/** Small SQL helpers shared by the score queries. */
import { PermanentError } from "@crux/core";
import { sql, type SQL } from "drizzle-orm";

/** A whole column as one array parameter: `$1::type[]` (jsonb travels as text). */
export function arrayParam(values: unknown[], type: string): SQL {
  return sql`${sql.param(values)}::${sql.raw(type)}[]`;
}

/** One `unnest(...) AS u(cols)` source from named columns of equal length. */
export function unnestOf(columns: { name: string; type: string; values: unknown[] }[]): SQL {
  const arrays = columns.map((c) => arrayParam(c.values, c.type === "jsonb" ? "text" : c.type));
  return sql`unnest(${sql.join(arrays, sql`, `)}) AS u(${sql.raw(columns.map((c) => c.name).join(", "))})`;
}

/** Select list for unnestOf columns, casting jsonb back. */
export function unnestSelect(columns: { name: string; type: string }[]): SQL {
  return sql.raw(columns.map((c) => (c.type === "jsonb" ? `u.${c.name}::jsonb` : `u.${c.name}`)).join(", "));
}

/** Opaque keyset cursor: base64url JSON of the last row's key values. */
export function encodeCursor(key: (string | number | null)[]): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/** Throws PermanentError("invalid_cursor") unless the cursor decodes to `arity` strings/numbers/nulls. */
export function decodeCursor(cursor: string, arity: number): (string | number | null)[] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(parsed) &&
      parsed.length === arity &&
      parsed.every((v) => v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v)))
    ) {
      return parsed as (string | number | null)[];
    }
  } catch {
    // fall through
  }
  throw new PermanentError("invalid_cursor", "cursor is not one this API returned");
}

export function num(v: unknown): number {
  return v === null || v === undefined ? 0 : Number(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

export function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
