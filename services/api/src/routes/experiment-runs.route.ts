/**
 * Running an experiment from Crux (docs/experiments.md §8): start plans one
 * run per task × variant × trial (only those not planned yet, within the
 * project's cap) and enqueues their dispatch; progress reads the dispatches
 * against the scored runs; stop and resume hold and release the runs not sent.
 */
import { ExperimentProgress, StartResponse } from "@crux/contracts";
import {
  countPlanned,
  dispatchProgress,
  getExperiment,
  getExperimentSettings,
  getRunner,
  pendingDispatchIds,
  planDispatches,
  readDatasetVersion,
  resumeDispatches,
  stopDispatches,
  type Database,
} from "@crux/db";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";

const IdParams = z.object({ id: z.string().min(1).max(200) });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

export function experimentRunsRoutes(deps: { database: Database; queue?: JobQueue | undefined; log: Logger }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;
    const declared = async (projectId: string, id: string) => {
      const e = await getExperiment(db, projectId, id);
      if (!e) throw new ApiError("not_found", `experiment ${id} not found`);
      if (e.implicit)
        throw new ApiError("invalid_request", `experiment ${id} is implicit (run tags only): declare it with a dataset and a runner to run it from Crux`);
      return e;
    };
    /** Enqueues dispatches; one not enqueued (no queue, or it is down) is sent by the worker's sweeper once past its quiet period. */
    async function enqueue(ids: readonly string[]): Promise<void> {
      if (!deps.queue) return;
      try {
        for (const dispatchId of ids) await deps.queue.enqueue("experiment.dispatch", { dispatchId });
      } catch (err) {
        deps.log.warn(
          { error: err instanceof Error ? err.message : String(err) },
          "experiment runs not enqueued; the worker's sweeper sends them after its quiet period",
        );
      }
    }

    r.post(
      "/experiments/:id/start",
      {
        schema: {
          summary: "Dispatch the experiment's runs to its runner: says how many, within the project's cap",
          tags: ["experiments"],
          params: IdParams,
          response: { 202: StartResponse, ...errors },
        },
      },
      async (req, reply) => {
        const e = await declared(req.projectId, req.params.id);
        if (e.datasetId === null || e.datasetVersion === null) throw new ApiError("invalid_request", "the experiment has no dataset: nothing to run");
        if (e.runnerId === null || !(await getRunner(db, req.projectId, e.runnerId)))
          throw new ApiError("invalid_request", "the experiment has no runner: register one (POST /runners) and set runnerId");
        const variants = e.variants.filter((v) => !v.implicit);
        if (variants.length === 0) throw new ApiError("invalid_request", "the experiment declares no variant");
        const [items, settings, planned] = await Promise.all([
          readDatasetVersion(db, e.datasetId, e.datasetVersion),
          getExperimentSettings(db, req.projectId),
          countPlanned(db, req.projectId, e.id),
        ]);
        const runs = items.flatMap((item) =>
          variants.flatMap((v) => Array.from({ length: e.trials }, (_, trial) => ({ variant: v.name, taskId: item.taskId, trial }))),
        );
        const fresh = runs.length - planned;
        if (fresh > settings.maxRunsPerStart) {
          throw new ApiError(
            "invalid_request",
            `starting would dispatch ${fresh} runs; the project's cap is ${settings.maxRunsPerStart} (PUT /experiment-settings maxRunsPerStart)`,
          );
        }
        const ids = await planDispatches(db, req.projectId, e.id, runs);
        // Runs planned before and still pending (a start after a lost enqueue) go again; the queue is unique per dispatch.
        await enqueue([...new Set([...ids, ...(await pendingDispatchIds(db, req.projectId, e.id))])]);
        return reply.code(202).send({ experimentId: e.id, dispatches: ids.length, cap: settings.maxRunsPerStart, concurrency: settings.concurrency });
      },
    );
    r.get(
      "/experiments/:id/progress",
      {
        schema: {
          summary: "Runs expected, pending, running, scored, failed, timed out and stopped",
          tags: ["experiments"],
          params: IdParams,
          response: { 200: ExperimentProgress, ...errors },
        },
      },
      async (req) => {
        const e = await declared(req.projectId, req.params.id);
        return { experimentId: e.id, status: e.status, ...(await dispatchProgress(db, req.projectId, e.id, "experiment")) };
      },
    );
    r.post(
      "/experiments/:id/stop",
      {
        schema: {
          summary: "Hold the runs not sent yet (sent ones run on)",
          tags: ["experiments"],
          params: IdParams,
          response: { 200: ExperimentProgress, ...errors },
        },
      },
      async (req) => {
        const e = await declared(req.projectId, req.params.id);
        await stopDispatches(db, req.projectId, e.id);
        return { experimentId: e.id, status: "stopped" as const, ...(await dispatchProgress(db, req.projectId, e.id, "experiment")) };
      },
    );
    r.post(
      "/experiments/:id/resume",
      { schema: { summary: "Send the held runs again", tags: ["experiments"], params: IdParams, response: { 200: ExperimentProgress, ...errors } } },
      async (req) => {
        const e = await declared(req.projectId, req.params.id);
        await resumeDispatches(db, req.projectId, e.id);
        await enqueue(await pendingDispatchIds(db, req.projectId, e.id));
        return { experimentId: e.id, status: "running" as const, ...(await dispatchProgress(db, req.projectId, e.id, "experiment")) };
      },
    );
  };
}
