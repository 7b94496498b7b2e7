/** The alert events of a project, newest first, keyset-paginated on (created_at, id). */
import { and, desc, eq, getTableColumns } from "drizzle-orm";
import type { Database } from "../client.ts";
import { cursorTime, nextTimeCursor, olderThanCursor } from "../sql/cursor.ts";
import { eventOf, type StoredAlertEvent } from "./rules.repository.ts";
import { alertEvents } from "../schema/alerts.ts";
import { clampLimit } from "../sql/util.ts";

export async function listAlertEvents(
  database: Database,
  projectId: string,
  q: { ruleId?: string | undefined; type?: StoredAlertEvent["type"] | undefined; cursor?: string | undefined; limit?: number | undefined },
): Promise<{ items: StoredAlertEvent[]; nextCursor: string | null }> {
  const limit = clampLimit(q.limit);
  const rows = await database.db
    .select({ ...getTableColumns(alertEvents), cursorAt: cursorTime(alertEvents.createdAt) })
    .from(alertEvents)
    .where(
      and(
        eq(alertEvents.projectId, projectId),
        q.ruleId === undefined ? undefined : eq(alertEvents.ruleId, q.ruleId),
        q.type === undefined ? undefined : eq(alertEvents.type, q.type),
        olderThanCursor(q.cursor, alertEvents.createdAt, alertEvents.id),
      ),
    )
    .orderBy(desc(alertEvents.createdAt), desc(alertEvents.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit).map(eventOf), nextCursor: nextTimeCursor(rows, limit) };
}
