/**
 * POST /traces/:id/judge's answer: per judge of the project's settings, whether the job runs it
 * (no verdict of its prompt version and model yet), retries it (its verdict failed) or keeps its
 * verdict (cached, not paid for again).
 */
import type { JudgeKind } from "@crux/contracts";
import { listVerdicts, type Database, type EffectiveJudgeSettings } from "@crux/db";
import { judgeDefinitions } from "@crux/judges";

export async function plannedJudges(
  database: Database,
  projectId: string,
  traceId: string,
  settings: Pick<EffectiveJudgeSettings, "model" | "kinds">,
  retried: readonly { producerId: string; model: string }[],
): Promise<{ judge: string; model: string; action: "run" | "retry" | "cached" }[]> {
  const model = settings.model ?? "";
  const kinds = (settings.kinds ?? Object.keys(judgeDefinitions)) as JudgeKind[];
  const verdicts = await listVerdicts(database, projectId, traceId);
  return kinds
    .filter((kind) => kind in judgeDefinitions)
    .map((kind) => {
      const judge = `judge.${kind}`;
      const own = verdicts.filter((v) => v.producerId === judge && v.producerVersion === judgeDefinitions[kind].version && v.model === model);
      const action = own.some((v) => v.status === "succeeded")
        ? "cached"
        : retried.some((r) => r.producerId === judge && r.model === model) || own.some((v) => v.status === "failed")
          ? "retry"
          : "run";
      return { judge, model, action };
    });
}
