/**
 * The safety net that makes Redis optional for durability: traces still dirty
 * long after their last span (their settle job was never enqueued, or was
 * lost) are enqueued to trace.settle again, and settled traces whose score
 * request is as old (a score job lost, or an enqueue that failed in the settle
 * stage or the API) to trace.score, and traces whose judge request is as old
 * and past (a judge job lost, or its enqueue failed) to trace.judge. Postgres
 * is the source of truth. Experiment runs are swept alike: a dispatch pending
 * that long past its due time (its job lost, or the start's enqueue failed) is
 * enqueued to experiment.dispatch again.
 */
import { describeStorageError, listDirtyTraces, listJudgeRequests, listOverdueDispatches, listScoreRequests, type Database } from "@crux/db";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";

export interface SweeperOptions {
  database: Database;
  queue: JobQueue;
  intervalMs: number;
  quietMs: number;
  batchSize?: number;
  log: Logger;
  /** Told how many traces (and experiment runs) each sweep re-enqueued (metrics). */
  onReenqueued?: (traces: number) => void;
}

export function createSweeper(opts: SweeperOptions) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  /**
   * Returns how many jobs it enqueued (settles, scores, judges and experiment runs). `quietMs: 0` takes
   * every dirty trace, request and due run (the all-in-one start-up sweep, when no job of this process exists yet).
   */
  async function sweepOnce(over: { quietMs?: number; limit?: number } = {}): Promise<number> {
    const bounds = { quietBeforeMs: over.quietMs ?? opts.quietMs, limit: over.limit ?? opts.batchSize ?? 1_000 };
    const dirty = await listDirtyTraces(opts.database, bounds);
    if (dirty.length > 0) {
      await opts.queue.enqueueMany(
        "trace.settle",
        dirty.map((t) => ({ projectId: t.projectId, traceId: t.traceId })),
        { delayMs: 0 },
      );
    }
    const requested = await listScoreRequests(opts.database, bounds);
    if (requested.length > 0) {
      await opts.queue.enqueueMany(
        "trace.score",
        requested.map((t) => ({ projectId: t.projectId, traceId: t.traceId })),
        { delayMs: 0 },
      );
    }
    const judge = await listJudgeRequests(opts.database, bounds);
    if (judge.length > 0) {
      await opts.queue.enqueueMany(
        "trace.judge",
        judge.map((t) => ({ projectId: t.projectId, traceId: t.traceId })),
        { delayMs: 0 },
      );
    }
    // experiment.dispatch is unique per dispatch: a run whose job still waits (on a slot or a retry) is not sent twice.
    const dispatches = await listOverdueDispatches(opts.database, bounds);
    if (dispatches.length > 0) {
      await opts.queue.enqueueMany(
        "experiment.dispatch",
        dispatches.map((dispatchId) => ({ dispatchId })),
        { delayMs: 0 },
      );
    }
    const total = dirty.length + requested.length + judge.length + dispatches.length;
    if (total === 0) return 0;
    opts.onReenqueued?.(total);
    opts.log.info(
      { settle: dirty.length, score: requested.length, judge: judge.length, experimentRuns: dispatches.length },
      "sweeper re-enqueued traces left unsettled, unscored or unjudged, and experiment runs left unsent",
    );
    return total;
  }

  function tick() {
    if (running) return;
    running = sweepOnce()
      .catch((err) => {
        opts.log.warn({ error: describeStorageError(err) }, "sweep failed; will retry next interval");
        return 0;
      })
      .finally(() => (running = null));
  }

  return {
    sweepOnce,
    start() {
      if (!timer) timer = setInterval(tick, opts.intervalMs);
      timer.unref?.();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
