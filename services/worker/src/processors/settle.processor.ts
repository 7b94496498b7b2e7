/**
 * trace.settle, the first stage (docs/architecture.md §6): a trace has been
 * quiet for the settle delay (jobs are debounced by trace id, so one settle
 * per trace runs at a time). Freeze it: hash its span set from the span ids
 * alone (spans are write-once by id, so no body is read), then, in one
 * compare-and-set on last_received_at, record the hash, bump the settle
 * version, clear the dirty flag and request the score stage; then enqueue
 * trace.score. If spans arrived meanwhile the flag stays and their own
 * settle job freezes the trace again.
 *
 * When the job runs is decided by the receiver: the quiet period
 * (CRUX_SETTLE_DELAY_MS), or the shorter CRUX_SETTLE_ROOT_DELAY_MS when the
 * root span arrived with all its children. A late span re-opens the trace.
 *
 * The score request is stored with the freeze, so a failed or lost score
 * enqueue only delays scoring: the sweeper enqueues the request later.
 * Database errors are retried by the queue with backoff.
 */
import { spanSetHash } from "@crux/core";
import { describeStorageError, markTraceSettled, readSettleState, type Database } from "@crux/db";
import { QueueClosedError, type JobQueue, type Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";

export interface SettleDeps {
  database: Database;
  /** Where the next stage (trace.score) is enqueued. */
  queue: JobQueue;
  log: Logger;
}

export function createSettleProcessor(deps: SettleDeps) {
  return async function settle(payload: Payload<"trace.settle">): Promise<void> {
    const { projectId, traceId } = payload;
    // One read: the flag, last_received_at and the span ids (no body), in one snapshot.
    const trace = await readSettleState(deps.database, projectId, traceId);
    if (!trace) {
      deps.log.warn(payload, "settle: trace not found, nothing to do");
      return;
    }
    if (!trace.dirty) {
      // Already settled and nothing arrived since (a duplicate or sweeper job): the frozen span set is current.
      deps.log.debug(payload, "settle: trace is not dirty, nothing to do");
      return;
    }
    const spanIds = trace.spanIds;
    const hash = spanSetHash(spanIds);
    const settled = await markTraceSettled(deps.database, projectId, traceId, trace.lastReceivedAt, hash);
    if (!settled) {
      deps.log.info({ ...payload, spans: spanIds.length }, "settle: spans arrived meanwhile; the trace stays dirty for their settle");
      return;
    }
    let scoreQueued = true;
    try {
      await deps.queue.enqueue("trace.score", payload, { delayMs: 0 });
    } catch (err) {
      scoreQueued = false;
      // Closing (a shutdown drains settle jobs): expected, the next start's sweep scores the trace.
      if (err instanceof QueueClosedError) deps.log.info(payload, "queue closing; the score request is left for the sweeper");
      else deps.log.warn({ ...payload, error: describeStorageError(err) }, "score enqueue failed; the score request is left to the sweeper");
    }
    deps.log.info({ ...payload, version: trace.settleVersion + 1, spans: spanIds.length, scoreQueued }, "trace settled");
  };
}
