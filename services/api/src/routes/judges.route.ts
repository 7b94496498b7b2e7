/**
 * The LLM judges over REST: the project's judge settings (GET/PUT
 * /judge-settings; the provider key is write-only, stored encrypted, never
 * returned), the call records (GET /judge-calls), a trace's verdicts
 * (GET /traces/:id/verdicts) and judging one trace now (POST
 * /traces/:id/judge: bypasses sampling, not the budget).
 */
import {
  JudgeCallList,
  JudgeCallsQuery,
  JudgeRequestResponse,
  JudgeSettingsBody,
  JudgeSettingsResponse,
  PageQuery,
  TraceId,
  TraceVerdictsResponse,
} from "@crux/contracts";
import {
  listJudgeCalls,
  listVerdictsPage,
  putJudgeSettings,
  readJudgeSettings,
  traceScoreStatus,
  type Database,
  type JudgeServiceDefaults,
  type SecretBox,
  requestJudge,
  retryFailedVerdicts,
} from "@crux/db";
import { literalTargetProblem, type PrivateTargets } from "@crux/outbound";
import type { JobQueue } from "@crux/queue";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";
import { judgeSettingsView } from "./judge-settings.view.ts";
import { plannedJudges } from "./judge-plan.view.ts";

export interface JudgeRoutesDeps {
  database: Database;
  /** The service default (env) every project falls back to. */
  defaults: JudgeServiceDefaults;
  /** Seals the keys projects store; null: a key cannot be stored (409 secret_key_missing). */
  secretBox: SecretBox | null;
  /** What the operator lets a project's base URL reach (CRUX_ALLOW_PRIVATE_TARGETS). */
  privateTargets: PrivateTargets;
  /** trace.judge producer for POST /traces/:id/judge. */
  queue?: JobQueue | undefined;
  now: () => number;
}

const errors = { 400: ErrorBody, 401: ErrorBody };
const params = z.object({ traceId: TraceId });

function warningOf(result: unknown): string | null {
  const w = result !== null && typeof result === "object" ? (result as { selfPreferenceWarning?: unknown }).selfPreferenceWarning : null;
  return typeof w === "string" ? w : null;
}

export function judgeRoutes(deps: JudgeRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;
    const view = async (projectId: string) =>
      judgeSettingsView(db, projectId, await readJudgeSettings(db, projectId, deps.defaults, deps.secretBox), {
        now: deps.now(),
        canStoreApiKey: deps.secretBox !== null,
      });

    r.get(
      "/judge-settings",
      {
        schema: {
          summary: "The project's judge settings, what they resolve to (or why judges are off), today's spend and the self-preference warning",
          tags: ["judges"],
          response: { 200: JudgeSettingsResponse, ...errors },
        },
      },
      async (req) => view(req.projectId),
    );

    r.put(
      "/judge-settings",
      {
        schema: {
          summary: "Replace the project's judge settings (apiKey is write-only: omit it to keep the stored one, null removes it)",
          tags: ["judges"],
          body: JudgeSettingsBody,
          response: { 200: JudgeSettingsResponse, ...errors, 409: ErrorBody },
        },
      },
      async (req) => {
        // A literal address is refused now; a name is checked on each call, on what it resolves to.
        const why = req.body.baseUrl === null ? null : literalTargetProblem(req.body.baseUrl, deps.privateTargets);
        if (why) throw new ApiError("invalid_request", `baseUrl: ${why}`);
        await putJudgeSettings(db, req.projectId, req.body, deps.secretBox);
        return view(req.projectId);
      },
    );

    r.get(
      "/judge-calls",
      {
        schema: {
          summary: "Every provider call the project's judges made, newest first: tokens, cost, latency, model, prompt version, outcome",
          tags: ["judges"],
          querystring: JudgeCallsQuery,
          response: { 200: JudgeCallList, ...errors },
        },
      },
      async (req) => {
        const q = req.query;
        const page = await listJudgeCalls(db, req.projectId, { ...q, since: q.since === undefined ? undefined : new Date(q.since) });
        return {
          items: page.items.map((c) => ({ ...c, id: String(c.id), createdAt: c.createdAt.toISOString() })) as z.infer<typeof JudgeCallList>["items"],
          nextCursor: page.nextCursor,
        };
      },
    );

    r.get(
      "/traces/:traceId/verdicts",
      {
        schema: {
          summary: "The trace's judge verdicts, oldest first (each kept per judge, prompt version, model and input hash)",
          tags: ["judges"],
          params,
          querystring: PageQuery,
          response: { 200: TraceVerdictsResponse, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        const { traceId } = req.params;
        if (!(await traceScoreStatus(db, req.projectId, traceId)).exists) throw new ApiError("not_found", `trace ${traceId} not found`);
        const page = await listVerdictsPage(db, req.projectId, traceId, { cursor: req.query.cursor, limit: req.query.limit });
        return {
          traceId,
          items: page.items.map((v) => ({ ...v, selfPreferenceWarning: warningOf(v.result), createdAt: v.createdAt.toISOString() })),
          nextCursor: page.nextCursor,
        };
      },
    );

    r.post(
      "/traces/:traceId/judge",
      {
        schema: {
          summary: "Judge one trace now, whatever the sampling share (the daily budget still applies); its verdicts appear under /verdicts",
          tags: ["judges"],
          params,
          response: { 202: JudgeRequestResponse, ...errors, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req, reply) => {
        const { traceId } = req.params;
        const status = await traceScoreStatus(db, req.projectId, traceId);
        if (!status.exists) throw new ApiError("not_found", `trace ${traceId} not found`);
        const settings = await readJudgeSettings(db, req.projectId, deps.defaults, deps.secretBox);
        if (!settings.effective.enabled) throw new ApiError("judges_off", `judges are off for this project: ${settings.effective.reason}`);
        if (!status.scored) throw new ApiError("conflict", `trace ${traceId} is not scored yet (still in its quiet period): ask again once it is`);
        // Failed verdicts are run again on request, whatever their backoff; then the request, durable
        // before the enqueue: if the enqueue fails (Redis down, or no queue here), a worker's sweeper starts it.
        const retried = await retryFailedVerdicts(db, req.projectId, traceId);
        await requestJudge(db, req.projectId, traceId);
        const judges = await plannedJudges(db, req.projectId, traceId, settings.effective, retried);
        let enqueued = false;
        if (deps.queue) {
          try {
            await deps.queue.enqueue("trace.judge", { projectId: req.projectId, traceId }, { delayMs: 0 });
            enqueued = true;
          } catch (err) {
            req.log.warn(
              { traceId, error: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : String(err) },
              "judge enqueue failed; the judge request is left to the sweeper",
            );
          }
        }
        return reply.code(202).send({ traceId, enqueued, judges });
      },
    );
  };
}
