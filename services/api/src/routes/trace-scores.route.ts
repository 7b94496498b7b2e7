/**
 * Per-trace score reads (/traces/:traceId/{scores,findings,attribution,handoffs,trajectories})
 * and POST /traces/:traceId/outcome. Reads serve the set the worker last
 * persisted; an unknown trace is 404, a known but not yet scored one answers
 * with `scored: false` and empty lists.
 */
import type { ValidationBar } from "@crux/core";
import {
  getTraceScores,
  listJudgeAttributions,
  listTraceAttributions,
  listTraceFindingsWithJudges,
  validationMetrics,
  listTraceHandoffs,
  listTraceTrajectories,
  listTraceSpans,
  readReplayAttributions,
  setOutcomeOverride,
  traceScoreStatus,
  type Database,
} from "@crux/db";
import { addContent } from "@crux/otlp";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  OutcomeBody,
  OutcomeResponse,
  PageQuery,
  TraceAttributionResponse,
  TraceFindingsResponse,
  TraceHandoffsResponse,
  TraceId,
  TraceScoresResponse,
  TraceTrajectoriesResponse,
} from "@crux/contracts";
import { ApiError, ErrorBody } from "../errors.ts";
import { rankAttributionMethods } from "./attribution-ranking.view.ts";
import { attributionView, handoffView } from "./score-set.view.ts";
import { traceScoresView } from "./trace-scores.view.ts";
import { trajectoryStepView } from "./trajectory.view.ts";

const params = z.object({ traceId: TraceId });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

export interface TraceScoresDeps {
  database: Database;
  /** trace.score producer; without it the worker's sweeper re-scores outcome changes. */
  queue?: JobQueue | undefined;
  log: Logger;
  validationBar: ValidationBar;
}

export function traceScoresRoutes(deps: TraceScoresDeps): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;

    /**
     * The trace's score job (the worker's key), due now: the span set did not change, so only the
     * score stage runs again. It replaces a pending one, or runs once more after a running one.
     * Never throws: the score request is already stored, so a failed enqueue only means the
     * sweeper re-scores the trace later (the BullMQ producer gives up within its command timeout,
     * 2 s by default).
     */
    async function enqueueRescore(projectId: string, traceId: string): Promise<boolean> {
      if (!deps.queue) return false;
      try {
        await deps.queue.enqueue("trace.score", { projectId, traceId }, { delayMs: 0 });
        return true;
      } catch (err) {
        deps.log.warn(
          { traceId, error: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : String(err) },
          "re-score enqueue failed; the score request is left to the sweeper",
        );
        return false;
      }
    }

    async function requireTrace(projectId: string, traceId: string): Promise<boolean> {
      const status = await traceScoreStatus(db, projectId, traceId);
      if (!status.exists) throw new ApiError("not_found", `trace ${traceId} not found`);
      return status.scored;
    }

    r.get(
      "/traces/:traceId/scores",
      {
        schema: {
          summary: "The trace's score summary: run tags, totals, multipliers, coordination, milestones, per-agent usage",
          tags: ["trace scores"],
          params,
          response: { 200: TraceScoresResponse, ...errors },
        },
      },
      async (req) => {
        const found = await getTraceScores(db, req.projectId, req.params.traceId);
        if (!found) {
          await requireTrace(req.projectId, req.params.traceId);
          return { traceId: req.params.traceId, scored: false as const, scores: null };
        }
        return { traceId: req.params.traceId, scored: true as const, scores: traceScoresView(found.summary, found.agents) };
      },
    );

    r.get(
      "/traces/:traceId/findings",
      {
        schema: {
          summary:
            "MAST findings of the trace: code findings by step then mode (each naming its detector), then each judge's current findings (source judge, with the judge id)",
          tags: ["trace scores"],
          params,
          querystring: PageQuery,
          response: { 200: TraceFindingsResponse, ...errors },
        },
      },
      async (req) => {
        const scored = await requireTrace(req.projectId, req.params.traceId);
        const page = await listTraceFindingsWithJudges(db, req.projectId, req.params.traceId, { cursor: req.query.cursor, limit: req.query.limit });
        return { traceId: req.params.traceId, scored, items: page.items, nextCursor: page.nextCursor };
      },
    );

    r.get(
      "/traces/:traceId/attribution",
      {
        schema: {
          summary: "Decisive-error attributions: method, agent, step index, span id, reason (a lead, not a verdict), and the judges' picks ranked with it",
          description:
            "`items`: the code attribution rows. `methods`: the code rank 1 and each judge's current pick (all-at-once, step-by-step), ranked by their step accuracy, then agent accuracy, on labelled traces (GET /validation); methods no labelled trace measures rank after the measured ones. A counterfactual replay of the trace that names a culprit (method `replay`) ranks first.",
          tags: ["trace scores"],
          params,
          response: { 200: TraceAttributionResponse, ...errors },
        },
      },
      async (req) => {
        const scored = await requireTrace(req.projectId, req.params.traceId);
        const [rows, judges, validation, replays] = await Promise.all([
          listTraceAttributions(db, req.projectId, req.params.traceId),
          listJudgeAttributions(db, req.projectId, req.params.traceId),
          validationMetrics(db, req.projectId, {}, deps.validationBar),
          readReplayAttributions(db, req.projectId, [req.params.traceId]),
        ]);
        const replay = replays.get(req.params.traceId) ?? null;
        return {
          traceId: req.params.traceId,
          scored,
          items: rows.map(attributionView),
          methods: rankAttributionMethods(rows, judges, validation.attribution, replay),
        };
      },
    );

    r.get(
      "/traces/:traceId/handoffs",
      {
        schema: {
          summary: "Handoffs between agents, in order",
          tags: ["trace scores"],
          params,
          response: { 200: TraceHandoffsResponse, ...errors },
        },
      },
      async (req) => {
        const scored = await requireTrace(req.projectId, req.params.traceId);
        const rows = await listTraceHandoffs(db, req.projectId, req.params.traceId);
        return { traceId: req.params.traceId, scored, items: rows.map(handoffView) };
      },
    );

    r.get(
      "/traces/:traceId/trajectories",
      {
        schema: {
          summary:
            "Per agent, its ordered steps (ids, kinds, tool names, errors, tokens) with each step's text (input, tool arguments, output, exception message)",
          tags: ["trace scores"],
          params,
          response: { 200: TraceTrajectoriesResponse, ...errors },
        },
      },
      async (req) => {
        const scored = await requireTrace(req.projectId, req.params.traceId);
        const [rows, spans] = await Promise.all([
          listTraceTrajectories(db, req.projectId, req.params.traceId),
          listTraceSpans(db, req.projectId, req.params.traceId),
        ]);
        // A step's text is the span's content, which the normalizer derives from the stored attributes.
        const spanById = new Map(spans.map((s) => [s.spanId, addContent(s)]));
        return {
          traceId: req.params.traceId,
          scored,
          items: rows.map((t) => ({ agent: t.agent, steps: t.steps.map((s) => trajectoryStepView(s, spanById.get(s.spanId))) })),
        };
      },
    );

    r.post(
      "/traces/:traceId/outcome",
      {
        schema: {
          summary: "Set the run's outcome and tags; the trace is re-scored",
          description:
            "Fields given replace earlier overrides; others keep theirs. They win over span tags. A re-score is requested and its job enqueued at once (`queued: true`; the worker re-scores a settled trace within seconds; a trace still in its quiet period is scored when it settles). If the queue is unreachable the answer is still 202 with `queued: false`: the request is stored and the worker's sweeper re-scores the trace after its quiet period.",
          tags: ["trace scores"],
          params,
          body: OutcomeBody,
          response: { 202: OutcomeResponse, ...errors },
        },
      },
      async (req, reply) => {
        const override = Object.fromEntries(Object.entries(req.body).filter(([, v]) => v !== undefined));
        const result = await setOutcomeOverride(db, req.projectId, req.params.traceId, override);
        if (!result) throw new ApiError("not_found", `trace ${req.params.traceId} not found`);
        const queued = await enqueueRescore(req.projectId, req.params.traceId);
        return reply.code(202).send({ traceId: req.params.traceId, override: result.override as Record<string, unknown>, rescore: "pending" as const, queued });
      },
    );
  };
}
