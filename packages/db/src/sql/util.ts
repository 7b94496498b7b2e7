/** Small SQL helpers shared by the queries of every domain: keyset cursors, page sizes, numeric values. */
import { PermanentError } from "@crux/core";
import { sql, type AnyColumn, type SQL } from "drizzle-orm";

/** Opaque keyset cursor: base64url JSON of the last row's key values. */
export function encodeCursor(key: (string | number | null)[]): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/**
 * Throws PermanentError("invalid_cursor") unless the cursor decodes to `arity`
 * strings/numbers/nulls. Strings holding U+0000 are refused too: Postgres
 * cannot compare them, so they would fail as a 500 instead of a 400.
 */
export function decodeCursor(cursor: string, arity: number): (string | number | null)[] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(parsed) &&
      parsed.length === arity &&
      parsed.every((v) => v === null || (typeof v === "string" && !v.includes("\u0000")) || (typeof v === "number" && Number.isFinite(v)))
    ) {
      return parsed as (string | number | null)[];
    }
  } catch {
    // fall through
  }
  throw invalidCursor();
}

function invalidCursor(): PermanentError {
  return new PermanentError("invalid_cursor", "cursor is not one this API returned");
}

/** A cursor position that must be an int4 (row ordinals). */
export function decodeOrdinalCursor(cursor: string): number {
  const [v] = decodeCursor(cursor, 1);
  if (typeof v !== "number" || !Number.isInteger(v) || v < -2_147_483_648 || v > 2_147_483_647) throw invalidCursor();
  return v;
}

export function num(v: unknown): number {
  return v === null || v === undefined ? 0 : Number(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** A page size within 1..max; `fallback` when none is given. */
export function clampLimit(limit: number | undefined, max = 500, fallback = 50): number {
  return Math.max(1, Math.min(Math.trunc(limit ?? fallback), max));
}

/**
 * Newest first along an index declared with `.desc()`, which drizzle-kit writes as DESC NULLS LAST.
 * A plain `desc()` asks for DESC NULLS FIRST, an order that index cannot give: Postgres then sorted
 * every matching row for each page instead of reading the page's rows off the index. The columns
 * this is used on are NOT NULL, so the order of the rows is the same.
 */
export function descAlongIndex(column: AnyColumn): SQL {
  return sql`${column} DESC NULLS LAST`;
}
