import { spanSetHash } from "@crux/core";
import { listSpanIds, type Database, type TraceSummary } from "@crux/db";

/**
 * The span-set hash the settle stage froze, which the score and judge stages work from; null
 * while the trace is dirty (its settle starts the stages again). A trace settled before the
 * stages existed has none stored: its stored span set is the one it was settled with.
 */
export async function frozenSpanSetHash(database: Database, trace: TraceSummary): Promise<string | null> {
  if (trace.dirty) return null;
  return trace.spanSetHash ?? spanSetHash(await listSpanIds(database, trace.projectId, trace.traceId));
}
