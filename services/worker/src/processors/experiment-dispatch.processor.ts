/**
 * experiment.dispatch (unique per dispatch id): sends one run of a started
 * experiment, or one re-run of a counterfactual replay (replay-dispatch.ts), to the project's runner as a signed POST (the same signing,
 * outbound guard and retry policy as webhook deliveries, packages/webhooks).
 * The run takes a concurrency slot of its experiment first; with none free the
 * job defers (no attempt used). A retryable failure defers the same job by the
 * retry policy's wait; a permanent one fails the dispatch. Arrival is read
 * from the run's scored trace, so nothing here waits for the runner's work.
 */
import type { RunRequest } from "@crux/contracts";
import {
  claimDispatch,
  getDispatch,
  getExperiment,
  getExperimentSettings,
  getRunnerForDispatch,
  openWebhookSecret,
  readDatasetVersion,
  SecretUnreadableError,
  settleDispatch,
  type Database,
  type StoredDispatch,
  type SecretBox,
} from "@crux/db";
import { JobDeferral, type Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { replayRunTarget, type RunTarget } from "./replay-dispatch.ts";
import type { PrivateTargets, Resolver } from "@crux/outbound";
import { decideRetry, deliverWebhook, type RetryPolicy } from "@crux/webhooks";
import type { z } from "zod";

export interface ExperimentDispatchDeps {
  database: Database;
  log: Logger;
  retryPolicy: RetryPolicy;
  timeoutMs: number;
  secretBox: SecretBox | null;
  /** How long a dispatch waits for a free concurrency slot before it looks again. */
  slotWaitMs?: number;
  now?: () => number;
  random?: () => number;
  /** Non-public targets the operator allows (CRUX_ALLOW_PRIVATE_TARGETS); a runner reaches them only with allowPrivateTargets. */
  privateTargets: PrivateTargets;
  resolver?: Resolver;
}

export function createExperimentDispatchProcessor(deps: ExperimentDispatchDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const slotWaitMs = deps.slotWaitMs ?? 5_000;

  return async function dispatch(payload: Payload<"experiment.dispatch">): Promise<void> {
    const d = await getDispatch(deps.database, payload.dispatchId);
    if (d === null || d.status !== "pending") return;
    const dueInMs = (d.nextAttemptAt?.getTime() ?? 0) - now();
    if (dueInMs > 50) throw new JobDeferral(dueInMs, "experiment run not due yet");
    const fail = async (reason: string) => {
      await settleDispatch(deps.database, d.id, { status: "failed", nextAttemptAt: null, lastError: reason });
      deps.log.warn({ ...payload, experimentId: d.experimentId, reason }, d.kind === "replay" ? "replay run not dispatched" : "experiment run not dispatched");
    };
    const target = d.kind === "replay" ? await replayRunTarget(deps.database, d) : await experimentRunTarget(deps.database, d);
    if ("error" in target) return fail(target.error);
    const runner = await getRunnerForDispatch(deps.database, d.projectId, target.runnerId);
    if (!runner) return fail(`runner ${target.runnerId} is gone`);
    let secret: string;
    try {
      secret = openWebhookSecret(runner.secret, deps.secretBox);
    } catch (err) {
      if (err instanceof SecretUnreadableError) return fail(`secret_unreadable: ${err.message}`);
      throw err;
    }
    const settings = await getExperimentSettings(deps.database, d.projectId);
    const claim = await claimDispatch(deps.database, d.id, settings.concurrency, target.runTimeoutMs);
    if (claim === "gone") return;
    if (claim === "busy") throw new JobDeferral(slotWaitMs, "experiment concurrency reached");

    const attempt = await deliverWebhook(
      { url: runner.url, secret, id: d.id, payload: target.body, timestamp: new Date(now()) },
      {
        timeoutMs: deps.timeoutMs,
        privateTargets: runner.allowPrivateTargets ? deps.privateTargets : "none",
        now,
        ...(deps.resolver ? { resolver: deps.resolver } : {}),
      },
    );
    const decision = decideRetry(attempt, d.attempts + 1, deps.retryPolicy, random);
    const error = attempt.ok ? null : `${attempt.failure.kind}: ${attempt.failure.message}`;
    const context = { ...payload, experimentId: d.experimentId, variant: d.variant, taskId: d.taskId, trial: d.trial, status: attempt.status };
    switch (decision.action) {
      case "delivered":
        deps.log.info(context, "experiment run dispatched");
        return;
      case "failed":
        await settleDispatch(deps.database, d.id, { status: "failed", nextAttemptAt: null, lastError: error });
        deps.log.warn({ ...context, error, reason: decision.reason }, "experiment run dispatch failed");
        return;
      case "retry":
        await settleDispatch(deps.database, d.id, { status: "pending", nextAttemptAt: new Date(now() + decision.delayMs), lastError: error });
        deps.log.info({ ...context, error, retryInMs: decision.delayMs }, "experiment run dispatch failed; will retry");
        throw new JobDeferral(decision.delayMs, "experiment run retry");
    }
  };
}

/** An experiment run's runner, timeout and request body (the dataset item of its task). */
async function experimentRunTarget(database: Database, d: StoredDispatch): Promise<RunTarget> {
  const experiment = await getExperiment(database, d.projectId, d.experimentId);
  const variant = experiment?.variants.find((v) => v.name === d.variant);
  if (!experiment || !variant || experiment.runnerId === null || experiment.datasetId === null || experiment.datasetVersion === null) {
    return { error: "the experiment, its variant, runner or dataset is gone" };
  }
  const item = (await readDatasetVersion(database, experiment.datasetId, experiment.datasetVersion)).find((i) => i.taskId === d.taskId);
  if (!item) return { error: `task ${d.taskId} is not in the dataset version` };
  const body: z.infer<typeof RunRequest> = {
    type: "experiment.run",
    experimentId: experiment.id,
    variant: { name: variant.name, description: variant.description, isBaseline: variant.isBaseline, activeAgents: variant.activeAgents },
    task: { taskId: item.taskId, input: item.input, expected: item.expected },
    trial: d.trial,
    tags: {
      "crux.experiment.id": experiment.id,
      "crux.variant": variant.name,
      "crux.task.id": item.taskId,
      "crux.trial": d.trial,
      ...(variant.isBaseline ? { "crux.baseline": true } : {}),
      ...(variant.activeAgents === null ? {} : { "crux.agents.active": variant.activeAgents }),
    },
  };
  return { runnerId: experiment.runnerId, runTimeoutMs: experiment.runTimeoutMs, body };
}
