/**
 * The runner request of one re-run of a counterfactual replay (docs/experiments.md §9): the
 * original task, the corrections of its set (one alone, or all together) and the tags the
 * re-run's trace carries back (crux.replay.id, the set as crux.variant, crux.trial). Sent by the
 * experiment.dispatch job like any experiment run.
 */
import type { ReplayRunRequest, RunRequest } from "@crux/contracts";
import { getReplay, replaySetId, type Database, type StoredDispatch } from "@crux/db";
import type { z } from "zod";

export type RunTarget = { runnerId: string; runTimeoutMs: number; body: z.infer<typeof RunRequest> | z.infer<typeof ReplayRunRequest> } | { error: string };

export async function replayRunTarget(database: Database, d: StoredDispatch): Promise<RunTarget> {
  const replay = await getReplay(database, d.projectId, d.experimentId);
  const set = replay?.sets.find((s) => s.id === d.variant);
  if (!replay || !set) return { error: "the replay or its correction set is gone" };
  const corrections = replay.corrections.filter((c) => set.kind === "combined" || replaySetId(c) === set.id);
  const body: z.infer<typeof ReplayRunRequest> = {
    type: "replay.run",
    replayId: replay.id,
    traceId: replay.traceId,
    set: { id: set.id, kind: set.kind, agents: [...set.agents], spanIds: [...set.spanIds] },
    corrections: corrections.map((c) => ({ agent: c.agent, spanId: c.spanId, output: c.output })),
    task: { taskId: replay.task.taskId, input: replay.task.input, expected: replay.task.expected },
    trial: d.trial,
    tags: {
      "crux.replay.id": replay.id,
      "crux.variant": set.id,
      "crux.trial": d.trial,
      ...(replay.task.taskId === null ? {} : { "crux.task.id": replay.task.taskId }),
    },
  };
  return { runnerId: replay.runnerId, runTimeoutMs: replay.runTimeoutMs, body };
}
