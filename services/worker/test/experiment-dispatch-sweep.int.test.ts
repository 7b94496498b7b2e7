/**
 * An experiment run whose dispatch job was lost (the start's enqueue failed, or the queue lost it) is
 * sent by the sweeper once it is past the quiet period, without a new start or resume; a stopped run
 * is not. On both databases and both queues, with a real HTTP runner.
 */
import {
  createDataset,
  createExperiment,
  createRunner,
  dispatchProgress,
  ensureProject,
  planDispatches,
  schema,
  stopDispatches,
  webhookSecretForStorage,
  type Database,
} from "@crux/db";
import { testDatabases, testQueues } from "@crux/testkit";
import { generateWebhookSecret } from "@crux/webhooks";
import { describe, expect, it } from "vitest";
import { createWorker } from "../src/worker.ts";
import { recordingLog, stopTestWorker, until } from "./traces.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

const PROJECT = "p-dispatch-sweep";
const queues = testQueues({ queuePrefix: "test-dispatch-sweep" });
const cases = testDatabases().flatMap((db) => queues.map((q) => ({ name: `${db.name} + ${q.name}`, db, q })));

/** An experiment of one variant and two tasks, its two runs planned as a start plans them but never enqueued. */
async function plannedExperiment(database: Database, id: string, runnerUrl: string): Promise<string[]> {
  const dataset = await createDataset(database, PROJECT, {
    name: `tasks-${id}`,
    description: "",
    items: ["t0", "t1"].map((taskId) => ({ taskId, input: { ask: taskId }, expected: null, milestoneSetId: null, humanMinutes: null, family: null, tags: [] })),
  });
  const runner = await createRunner(
    database,
    PROJECT,
    { name: `runner-${id}`, url: runnerUrl, allowPrivateTargets: true },
    webhookSecretForStorage(generateWebhookSecret(), null),
  );
  await createExperiment(database, PROJECT, {
    id,
    name: id,
    description: "",
    datasetId: dataset.id,
    datasetVersion: null,
    trials: 1,
    valueKind: "success",
    runnerId: runner.id,
    runTimeoutMs: null,
    variants: [{ name: "crew", description: "", isBaseline: false, activeAgents: null }],
  });
  return planDispatches(database, PROJECT, id, [
    { variant: "crew", taskId: "t0", trial: 0 },
    { variant: "crew", taskId: "t1", trial: 0 },
  ]);
}

describe.each(cases)("the sweeper sends experiment runs whose dispatch was lost on $name", ({ db, q }) => {
  it("re-enqueues a pending run past the quiet period, once, and leaves stopped runs alone", async () => {
    const database = await db.create();
    const { queue, purge } = q.create();
    const receiver = await startWebhookReceiver();
    const worker = createWorker({
      database,
      queue,
      log: recordingLog().log,
      config: {
        CRUX_WORKER_CONCURRENCY: 2,
        CRUX_SWEEP_INTERVAL_MS: 3_600_000,
        CRUX_SWEEP_QUIET_MS: 60_000,
        // The runner listens on this host: the operator's allowance a runner with allowPrivateTargets asks for.
        CRUX_ALLOW_PRIVATE_TARGETS: "loopback",
      },
    });
    try {
      await ensureProject(database, PROJECT, PROJECT);
      const lost = await plannedExperiment(database, "lost", receiver.url);
      expect(lost).toHaveLength(2);
      await plannedExperiment(database, "held", receiver.url);
      expect(await stopDispatches(database, PROJECT, "held")).toBe(2);
      worker.start();

      // Due just now: within the quiet period a job may still be on its way, so nothing is swept.
      expect(await worker.sweeper.sweepOnce()).toBe(0);
      // A minute and more later, the runs are still pending: their jobs were lost.
      await database.db.update(schema.experimentDispatches).set({ nextAttemptAt: new Date(Date.now() - 120_000) });
      expect(await dispatchProgress(database, PROJECT, "lost", "experiment")).toMatchObject({ expected: 2, pending: 2, running: 0 });
      expect(await worker.sweeper.sweepOnce()).toBe(2);
      await until("both runs sent", async () => receiver.ofType("experiment.run").length === 2);
      await until("both runs marked sent", async () => (await dispatchProgress(database, PROJECT, "lost", "experiment")).running === 2);
      const sent = receiver.ofType("experiment.run").map((r) => (JSON.parse(r.body) as { task: { taskId: string } }).task.taskId);
      expect(sent.sort()).toEqual(["t0", "t1"]);
      // Sent runs are not pending, and the stopped experiment's runs wait for a resume.
      expect(await worker.sweeper.sweepOnce()).toBe(0);
      expect(await dispatchProgress(database, PROJECT, "held", "experiment")).toMatchObject({ stopped: 2, running: 0 });
      expect(receiver.requests).toHaveLength(2);
    } finally {
      await stopTestWorker({ worker, queue, purge, database });
      await receiver.close();
    }
  }, 60_000);
});
