/**
 * An experiment's runs for the browser tests, as one OTLP/JSON export of @crux/testkit's tagged
 * runs: per variant, task and trial a run carrying the experiment tags and its outcome. Runs
 * tagged with an undeclared experiment id form an implicit experiment.
 */
import { taggedRunsExport, type TaggedRun } from "@crux/testkit";

export interface SeedVariant {
  name: string;
  baseline?: boolean;
  /** Active agents; the baseline runs one agent of its own. */
  agents: string[];
  succeeds: (task: number, trial: number) => boolean;
}

export function experimentExport(
  experimentId: string,
  variants: SeedVariant[],
  tasks: number,
  trials: number,
  startMs: number,
): { body: string; traceIds: string[] } {
  const runs: TaggedRun[] = [];
  let t = startMs;
  for (const v of variants) {
    for (let task = 0; task < tasks; task++) {
      for (let trial = 0; trial < trials; trial++) {
        runs.push({
          experimentId,
          variant: v.name,
          taskId: `task-${task}`,
          trial,
          success: v.succeeds(task, trial),
          ...(v.baseline ? { baseline: true } : { activeAgents: v.agents }),
          tokens: { input: 400 + 10 * task, output: 100 + trial },
          startMs: (t += 1000),
        });
      }
    }
  }
  return taggedRunsExport(runs);
}
