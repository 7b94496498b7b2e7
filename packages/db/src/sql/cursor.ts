/** Keyset cursors: by id, or over (created_at, id) newest first (the timestamp travels at the microseconds Postgres compares). */
import { gt, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { PermanentError } from "@crux/core";
import { decodeCursor, encodeCursor } from "./util.ts";

/** What cursorTime produces, and only that: never a Postgres special ('infinity', 'epoch') or a year past 9999. */
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** Row ids are randomUUID()s. */
const ROW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function invalidCursor(): PermanentError {
  return new PermanentError("invalid_cursor", "cursor is not one this API returned");
}

function rowIdOf(v: unknown): string {
  if (typeof v !== "string" || !ROW_ID.test(v)) throw invalidCursor();
  return v;
}

/** created_at as an ISO string with microseconds, selected with each row for its cursor. */
export const cursorTime = (createdAt: PgColumn) => sql<string>`to_char(${createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows strictly after the cursor's row, or no condition without a cursor. */
export function olderThanCursor(cursor: string | undefined, createdAt: PgColumn, id: PgColumn): SQL | undefined {
  if (cursor === undefined) return undefined;
  const [at, key] = decodeCursor(cursor, 2);
  if (typeof at !== "string" || !CURSOR_TIME.test(at) || !Number.isFinite(Date.parse(at))) throw invalidCursor();
  return sql`(${createdAt}, ${id}) < (${at}::timestamptz, ${rowIdOf(key)})`;
}

/** The next page's cursor from the fetched rows (limit + 1 of them), or null on the last page. */
export function nextTimeCursor(rows: { id: string; cursorAt: string }[], limit: number): string | null {
  const last = rows[limit - 1];
  return rows.length > limit && last ? encodeCursor([last.cursorAt, last.id]) : null;
}

/** Rows after the cursor's id, or no condition without a cursor. */
export function afterIdCursor(cursor: string | undefined, id: PgColumn): SQL | undefined {
  return cursor === undefined ? undefined : gt(id, rowIdOf(decodeCursor(cursor, 1)[0]));
}

/** The next page's cursor from the fetched rows (limit + 1 of them), or null on the last page. */
export function nextIdCursor(rows: { id: string }[], limit: number): string | null {
  const last = rows[limit - 1];
  return rows.length > limit && last ? encodeCursor([last.id]) : null;
}
