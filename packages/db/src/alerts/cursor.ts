/** Keyset cursors: by id, or over (created_at, id) newest first (the timestamp travels at the microseconds Postgres compares). */
import { gt, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { decodeCursor, encodeCursor } from "../scores/sql-util.ts";

/** created_at as an ISO string with microseconds, selected with each row for its cursor. */
export const cursorTime = (createdAt: PgColumn) => sql<string>`to_char(${createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows strictly after the cursor's row, or no condition without a cursor. */
export function olderThanCursor(cursor: string | undefined, createdAt: PgColumn, id: PgColumn): SQL | undefined {
  if (cursor === undefined) return undefined;
  const [at, key] = decodeCursor(cursor, 2);
  return sql`(${createdAt}, ${id}) < (${String(at)}::timestamptz, ${String(key)})`;
}

/** The next page's cursor from the fetched rows (limit + 1 of them), or null on the last page. */
export function nextTimeCursor(rows: { id: string; cursorAt: string }[], limit: number): string | null {
  const last = rows[limit - 1];
  return rows.length > limit && last ? encodeCursor([last.cursorAt, last.id]) : null;
}

/** Rows after the cursor's id, or no condition without a cursor. */
export function afterIdCursor(cursor: string | undefined, id: PgColumn): SQL | undefined {
  return cursor === undefined ? undefined : gt(id, String(decodeCursor(cursor, 1)[0]));
}

/** The next page's cursor from the fetched rows (limit + 1 of them), or null on the last page. */
export function nextIdCursor(rows: { id: string }[], limit: number): string | null {
  const last = rows[limit - 1];
  return rows.length > limit && last ? encodeCursor([last.id]) : null;
}
