/**
 * Per-project share of the worker's score and judge slots, so one project's
 * slow traces can delay its own scoring, never everyone's.
 *
 * A job whose project already holds its share first waits in the process for
 * one of the project's slots to free, for about twice the project's recent
 * job time (bounded by maxWaitMs): fast jobs (the usual tens of ms) then run
 * next without a trip back to the queue. Only when that wait runs out is the
 * job deferred (back to the queue, attempt not counted) and its queue slot
 * freed for another project's trace. A slow project (a job of seconds) thus
 * defers at once, as before, and another project waits at most maxWaitMs for
 * the slot a waiting job holds.
 */
import { JobDeferral } from "@crux/queue";

export interface ProjectSlotsOptions {
  /** Back to the queue for this long when no slot freed in time. */
  deferMs?: number;
  /** Longest in-process wait for a slot of the project. */
  maxWaitMs?: number;
  /** Wait before the project's job time is known. */
  initialWaitMs?: number;
}

/** Weight of the newest job in the project's running mean of job time. */
const meanWeight = 0.2;
/** Bounds the per-project state (projects seen recently). */
const maxTrackedProjects = 10_000;

export function createProjectSlots(perProject: number, opts: ProjectSlotsOptions = {}) {
  const deferMs = opts.deferMs ?? 250;
  const maxWaitMs = opts.maxWaitMs ?? 200;
  const initialWaitMs = opts.initialWaitMs ?? 100;
  const active = new Map<string, number>();
  const waiters = new Map<string, (() => void)[]>();
  const meanJobMs = new Map<string, number>();

  const waitBudget = (projectId: string): number => {
    const mean = meanJobMs.get(projectId);
    return mean === undefined ? initialWaitMs : Math.min(maxWaitMs, 2 * mean);
  };

  /** Resolves true once a slot of the project is handed over, false after waitMs. */
  function waitForSlot(projectId: string, waitMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const queue = waiters.get(projectId) ?? [];
      const take = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const q = waiters.get(projectId);
        const i = q?.indexOf(take) ?? -1;
        if (q && i >= 0) q.splice(i, 1);
        if (q?.length === 0) waiters.delete(projectId);
        resolve(false);
      }, waitMs);
      queue.push(take);
      waiters.set(projectId, queue);
    });
  }

  function release(projectId: string): void {
    const q = waiters.get(projectId);
    const next = q?.shift();
    if (q?.length === 0) waiters.delete(projectId);
    if (next) return next(); // the slot passes to the waiter: the project's count stays
    const left = (active.get(projectId) ?? 1) - 1;
    if (left === 0) active.delete(projectId);
    else active.set(projectId, left);
  }

  return {
    /** Runs `work` in one of the project's slots; throws JobDeferral when none freed within the wait. */
    async run<T>(projectId: string, work: () => Promise<T>): Promise<T> {
      const held = active.get(projectId) ?? 0;
      if (held < perProject) active.set(projectId, held + 1);
      else if (!(await waitForSlot(projectId, waitBudget(projectId)))) {
        throw new JobDeferral(deferMs, `project ${projectId} already runs ${held} score jobs (its share)`);
      }
      const started = performance.now();
      try {
        return await work();
      } finally {
        const ms = performance.now() - started;
        const mean = meanJobMs.get(projectId);
        if (mean === undefined && meanJobMs.size >= maxTrackedProjects) meanJobMs.clear();
        meanJobMs.set(projectId, mean === undefined ? ms : mean + meanWeight * (ms - mean));
        release(projectId);
      }
    },
    active: (projectId: string): number => active.get(projectId) ?? 0,
  };
}
