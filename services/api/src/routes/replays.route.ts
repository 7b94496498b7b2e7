/**
 * Counterfactual replay (docs/experiments.md §9): POST /traces/:traceId/replay plans one re-run
 * per correction set (each correction alone, and all together when there are several) × trial
 * and enqueues them on the experiment dispatch job; GET /replays/:id and GET
 * /traces/:traceId/replays serve the progress and the report (core's replayReport); DELETE
 * /replays/:id drops a replay and its unsent re-runs.
 */
import { replayAttribution, type ReplaySet } from "@crux/core";
import { Replay, ReplayBody, ReplayList, TraceId } from "@crux/contracts";
import { addContent } from "@crux/otlp";
import {
  createReplay,
  deleteReplay,
  dispatchProgress,
  getExperimentSettings,
  getReplay,
  getRunner,
  listReplays,
  listRunners,
  readReplayReport,
  readReplaySubject,
  replaySetId,
  traceScoreStatus,
  type Database,
  type ReplayCorrection,
  type StoredReplay,
} from "@crux/db";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody };

/** Each correction alone; all together when there are several (one correction alone already is all of them). */
function correctionSets(corrections: readonly ReplayCorrection[]): ReplaySet[] {
  const singles = corrections.map((c): ReplaySet => ({
    id: replaySetId(c),
    kind: "single",
    agents: c.agent === null ? [] : [c.agent],
    spanIds: c.spanId === null ? [] : [c.spanId],
  }));
  if (singles.length < 2) return singles;
  const agents = [...new Set(singles.flatMap((s) => s.agents))];
  return [...singles, { id: "all", kind: "combined", agents, spanIds: singles.flatMap((s) => s.spanIds) }];
}

export function replaysRoutes(deps: { database: Database; queue?: JobQueue | undefined; log: Logger }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;

    async function view(replay: StoredReplay): Promise<z.infer<typeof Replay>> {
      const [progress, report] = await Promise.all([dispatchProgress(db, replay.projectId, replay.id, "replay"), readReplayReport(db, replay)]);
      const { projectId: _p, sets: _s, createdAt, ...rest } = replay;
      return {
        ...rest,
        createdAt: createdAt.toISOString(),
        progress,
        report,
        attribution: replayAttribution(report),
      };
    }

    async function runnerFor(projectId: string, runnerId: string | undefined): Promise<string> {
      if (runnerId !== undefined) {
        if (!(await getRunner(db, projectId, runnerId))) throw new ApiError("invalid_request", `runnerId: runner ${runnerId} not found`);
        return runnerId;
      }
      const { items } = await listRunners(db, projectId, { limit: 2 });
      if (items.length === 1) return (items[0] as { id: string }).id;
      throw new ApiError(
        "invalid_request",
        items.length === 0 ? "the project has no runner: register one (POST /runners)" : "runnerId: required, the project has several runners",
      );
    }

    r.post(
      "/traces/:traceId/replay",
      {
        schema: {
          summary: "Re-run the trace's task through the runner with corrections, alone and together, to find the decisive agent",
          tags: ["replays"],
          params: z.object({ traceId: TraceId }),
          body: ReplayBody,
          response: { 202: Replay, ...errors },
        },
      },
      async (req, reply) => {
        const { traceId } = req.params;
        const subject = await readReplaySubject(db, req.projectId, traceId, (span) => addContent(span).content.text().input ?? null);
        if (subject === null) throw new ApiError("not_found", `trace ${traceId} not found`);
        const corrections = req.body.corrections.map((c, i): ReplayCorrection => {
          if (c.spanId !== undefined) {
            if (!subject.spanAgents.has(c.spanId))
              throw new ApiError("invalid_request", `corrections[${i}].spanId: span ${c.spanId} is not in trace ${traceId}`);
            return { agent: subject.spanAgents.get(c.spanId) ?? null, spanId: c.spanId, output: c.output };
          }
          const agent = c.agent as string;
          if (!subject.agents.has(agent)) {
            throw new ApiError(
              "invalid_request",
              `corrections[${i}].agent: agent ${agent} does not act in trace ${traceId} (agents: ${[...subject.agents].sort().join(", ") || "none"})`,
            );
          }
          return { agent, spanId: null, output: c.output };
        });
        if (subject.task === null) {
          throw new ApiError(
            "conflict",
            `trace ${traceId} has no task to replay: it is not a run of a dataset item of a declared experiment, and its root span recorded no input`,
          );
        }
        const runnerId = await runnerFor(req.projectId, req.body.runnerId);
        const sets = correctionSets(corrections);
        const settings = await getExperimentSettings(db, req.projectId);
        const runs = sets.length * req.body.trials;
        if (runs > settings.maxRunsPerStart) {
          throw new ApiError(
            "invalid_request",
            `the replay would dispatch ${runs} runs; the project's cap is ${settings.maxRunsPerStart} (PUT /experiment-settings maxRunsPerStart)`,
          );
        }
        const { replay, dispatchIds } = await createReplay(db, {
          projectId: req.projectId,
          traceId,
          runnerId,
          trials: req.body.trials,
          corrections,
          sets,
          task: subject.task,
          runTimeoutMs: req.body.runTimeoutMs ?? settings.runTimeoutMs,
        });
        if (deps.queue) {
          try {
            for (const dispatchId of dispatchIds) await deps.queue.enqueue("experiment.dispatch", { dispatchId });
          } catch (err) {
            // The rows stay pending: the progress shows them so, and a lost enqueue is visible rather than silent.
            deps.log.warn({ replayId: replay.id, error: err instanceof Error ? err.message : String(err) }, "replay runs not enqueued");
          }
        }
        return reply.code(202).send(await view(replay));
      },
    );

    r.get(
      "/replays/:id",
      {
        schema: {
          summary: "A replay's progress and report: per correction set the trials that succeeded, the decisive agents, shared blame, the flip rate",
          tags: ["replays"],
          params: z.object({ id: z.uuid() }),
          response: { 200: Replay, ...errors },
        },
      },
      async (req) => {
        const replay = await getReplay(db, req.projectId, req.params.id);
        if (!replay) throw new ApiError("not_found", `replay ${req.params.id} not found`);
        return view(replay);
      },
    );

    r.delete(
      "/replays/:id",
      {
        schema: {
          summary: "Delete a replay: its re-runs not sent yet are never sent, and it no longer counts as the trace's attribution",
          description: "Re-runs already sent run on at the runner; their traces stay, tagged with the replay id.",
          tags: ["replays"],
          params: z.object({ id: z.uuid() }),
          response: { 204: z.null(), ...errors },
        },
      },
      async (req, reply) => {
        if (!(await deleteReplay(db, req.projectId, req.params.id))) throw new ApiError("not_found", `replay ${req.params.id} not found`);
        return reply.code(204).send(null);
      },
    );

    r.get(
      "/traces/:traceId/replays",
      {
        schema: {
          summary: "The trace's replays, newest first, with their progress and reports",
          tags: ["replays"],
          params: z.object({ traceId: TraceId }),
          response: { 200: ReplayList, ...errors },
        },
      },
      async (req) => {
        const replays = await listReplays(db, req.projectId, req.params.traceId);
        if (replays.length === 0 && !(await traceScoreStatus(db, req.projectId, req.params.traceId)).exists) {
          throw new ApiError("not_found", `trace ${req.params.traceId} not found`);
        }
        return { items: await Promise.all(replays.map(view)) };
      },
    );
  };
}
