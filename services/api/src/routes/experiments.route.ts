/**
 * /experiments (declared, or implicit from run tags), their ablation variants,
 * reports and before/after comparisons, and /experiment-settings
 * (docs/experiments.md). Runs are traces tagged crux.experiment.id; nothing
 * here scores them.
 */
import { randomUUID } from "node:crypto";
import {
  AblationsBody,
  AblationsResponse,
  Experiment,
  ExperimentBody,
  ExperimentList,
  ExperimentReport,
  ExperimentSettings,
  ModeComparison,
  ModeComparisonQuery,
  PageQuery,
} from "@crux/contracts";
import { ablationVariants, coalitionKey, defaultReportOptions, modeRateChange, mulberry32 } from "@crux/core";
import {
  addVariants,
  createExperiment,
  deleteExperiment,
  getExperiment,
  getExperimentSettings,
  listExperiments,
  putExperimentSettings,
  type Database,
  type StoredExperiment,
} from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";
import { experimentReport, experimentRunsFor } from "./experiment-report.ts";

const IdParams = z.object({ id: z.string().min(1).max(200) });
const errors = { 400: ErrorBody, 401: ErrorBody };

function experimentView(e: StoredExperiment): z.infer<typeof Experiment> {
  return { ...e, createdAt: e.createdAt?.toISOString() ?? null, updatedAt: e.updatedAt?.toISOString() ?? null };
}

export function experimentsRoutes(deps: { database: Database }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;
    const notFound = (id: string) => new ApiError("not_found", `experiment ${id} not found`);
    const load = async (projectId: string, id: string) => {
      const e = await getExperiment(db, projectId, id);
      if (!e) throw notFound(id);
      return e;
    };

    r.get(
      "/experiments",
      {
        schema: {
          summary: "List experiments, declared and implicit (seen only in run tags)",
          tags: ["experiments"],
          querystring: PageQuery,
          response: { 200: ExperimentList, ...errors },
        },
      },
      async (req) => {
        const page = await listExperiments(db, req.projectId, req.query);
        return { items: page.items.map(experimentView), nextCursor: page.nextCursor };
      },
    );
    r.post(
      "/experiments",
      {
        schema: {
          summary: "Declare an experiment: a dataset version, variants (one may be the baseline), trials per task",
          tags: ["experiments"],
          body: ExperimentBody,
          response: { 201: Experiment, ...errors, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req, reply) => {
        const e = await createExperiment(db, req.projectId, { ...req.body, id: req.body.id ?? randomUUID() });
        return reply.code(201).send(experimentView(e));
      },
    );
    r.get(
      "/experiments/:id",
      {
        schema: {
          summary: "One experiment with its variants and scored runs",
          tags: ["experiments"],
          params: IdParams,
          response: { 200: Experiment, ...errors, 404: ErrorBody },
        },
      },
      async (req) => experimentView(await load(req.projectId, req.params.id)),
    );
    r.delete(
      "/experiments/:id",
      {
        schema: {
          summary: "Delete a declared experiment, its variants and dispatches; its runs (traces) stay, so it lives on as implicit while tagged runs exist",
          tags: ["experiments"],
          params: IdParams,
          response: { 204: z.null(), ...errors, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        if (!(await deleteExperiment(db, req.projectId, req.params.id))) throw notFound(req.params.id);
        return reply.code(204).send(null);
      },
    );
    r.post(
      "/experiments/:id/ablations",
      {
        schema: {
          summary: "Add the ablation variants per-agent credit needs: leave-one-out, every coalition, or the prefixes of sampled orderings",
          tags: ["experiments"],
          params: IdParams,
          body: AblationsBody,
          response: { 200: AblationsResponse, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        const e = await load(req.projectId, req.params.id);
        if (e.implicit)
          throw new ApiError("invalid_request", `experiment ${e.id} is implicit (run tags only): declare it with POST /experiments to add variants`);
        const agents = req.body.agents ?? [...new Set(e.variants.filter((v) => !v.isBaseline).flatMap((v) => v.activeAgents ?? []))];
        if (agents.length === 0) throw new ApiError("invalid_request", "agents: no variant names its active agents; list the agents");
        if (req.body.mode === "all_coalitions" && agents.length > 10)
          throw new ApiError("invalid_request", `all_coalitions of ${agents.length} agents: at most 10 (use sampled_orderings)`);
        // A coalition some variant already runs (the full system, usually) is not added twice.
        const have = new Set(e.variants.filter((v) => !v.isBaseline).map((v) => coalitionKey(v.activeAgents ?? agents)));
        const variants = ablationVariants(agents, req.body.mode, { orderings: defaultReportOptions.shapleyOrderings, seed: defaultReportOptions.seed }).filter(
          (v) => !have.has(coalitionKey(v.activeAgents)),
        );
        const added = await addVariants(
          db,
          req.projectId,
          e.id,
          variants.map((v) => ({ ...v, isBaseline: false })),
        );
        if (added === null) throw notFound(e.id);
        return { added, experiment: experimentView(await load(req.projectId, e.id)) };
      },
    );
    r.get(
      "/experiments/:id/report",
      {
        schema: {
          summary:
            "The experiment's report: per variant, against the baseline, per agent, time horizon and the directive, each figure with its interval and runs",
          tags: ["experiments"],
          params: IdParams,
          response: { 200: ExperimentReport, ...errors, 404: ErrorBody },
        },
      },
      async (req) => experimentReport(db, req.projectId, await load(req.projectId, req.params.id)),
    );
    r.get(
      "/experiments/:id/compare",
      {
        schema: {
          summary: "Did a failure mode's rate drop from another experiment (before a change) to this one (after)?",
          tags: ["experiments"],
          params: IdParams,
          querystring: ModeComparisonQuery,
          response: { 200: ModeComparison, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        const [after, before] = await Promise.all([
          experimentRunsFor(db, req.projectId, req.params.id),
          experimentRunsFor(db, req.projectId, req.query.against),
        ]);
        if (!after) throw notFound(req.params.id);
        if (!before) throw notFound(req.query.against);
        const pick = (x: NonNullable<typeof after>) => {
          const name =
            req.query.variant ??
            x.experiment.variants.find((v) => !v.isBaseline && v.activeAgents === null)?.name ??
            x.experiment.variants.find((v) => !v.isBaseline)?.name ??
            null;
          return { name, runs: x.runs.filter((r) => r.variant === name) };
        };
        const a = pick(after);
        const b = pick(before);
        const result = modeRateChange(b.runs, a.runs, req.query.mode, {
          rng: mulberry32(defaultReportOptions.seed),
          iterations: defaultReportOptions.iterations,
          confidence: defaultReportOptions.confidence,
        });
        return {
          mode: req.query.mode,
          before: { experimentId: before.experiment.id, variant: b.name, rate: result.before, runs: b.runs.length },
          after: { experimentId: after.experiment.id, variant: a.name, rate: result.after, runs: a.runs.length },
          change: result.change,
          dropped: result.dropped,
        };
      },
    );
    r.get(
      "/experiment-settings",
      {
        schema: { summary: "The project's experiment settings (defaults until set)", tags: ["experiments"], response: { 200: ExperimentSettings, ...errors } },
      },
      async (req) => ExperimentSettings.parse(await getExperimentSettings(db, req.projectId)),
    );
    r.put(
      "/experiment-settings",
      {
        schema: {
          summary: "Replace the experiment settings: metrics opt-in, ship bar, dispatch cap, concurrency, run timeout",
          tags: ["experiments"],
          body: ExperimentSettings,
          response: { 200: ExperimentSettings, ...errors },
        },
      },
      async (req) => ExperimentSettings.parse(await putExperimentSettings(db, req.projectId, req.body)),
    );
  };
}
