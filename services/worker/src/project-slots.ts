/**
 * Per-project share of the worker's settle slots. A job whose project already
 * holds its share is deferred (back to the queue, attempt not counted), so the
 * remaining slots stay free for other projects: one project's slow traces can
 * delay its own scoring, never everyone's.
 */
import { JobDeferral } from "@crux/queue";

export function createProjectSlots(perProject: number, deferMs = 250) {
  const active = new Map<string, number>();
  return {
    /** Runs `work` in one of the project's slots, or throws JobDeferral when it has none free. */
    async run<T>(projectId: string, work: () => Promise<T>): Promise<T> {
      const held = active.get(projectId) ?? 0;
      if (held >= perProject) throw new JobDeferral(deferMs, `project ${projectId} already runs ${held} settle jobs (its share)`);
      active.set(projectId, held + 1);
      try {
        return await work();
      } finally {
        const left = (active.get(projectId) ?? 1) - 1;
        if (left === 0) active.delete(projectId);
        else active.set(projectId, left);
      }
    },
    active: (projectId: string): number => active.get(projectId) ?? 0,
  };
}
