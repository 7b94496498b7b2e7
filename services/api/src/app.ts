/**
 * The API as a Fastify app built from explicit dependencies (docs/engineering.md §2):
 * zod-validated routes, one error shape, OpenAPI at /api/docs, probes and
 * Prometheus metrics outside /api/v1.
 */
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import { errorStatus } from "@crux/contracts";
import { defaultValidationBar, type ValidationBar } from "@crux/core";
import type { Database, JudgeServiceDefaults, SecretBox } from "@crux/db";
import type { PrivateTargets } from "@crux/outbound";
import type { JobQueue } from "@crux/queue";
import type { Authenticator } from "@crux/auth";
import { createLogger, createMetricsRegistry, type Logger, type Registry } from "@crux/runtime";
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from "fastify";
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { z } from "zod";
import { guardRouting, registerAuthenticatedScope } from "./authenticated-scope.ts";
import { apiErrorHandler, routeOf } from "./error-handler.ts";
import { ApiError, type ErrorBody } from "./errors.ts";
import { registerOperations } from "./operations.ts";
import { configRoutes } from "./routes/config.route.ts";
import { judgeRoutes } from "./routes/judges.route.ts";
import { metricsRoutes } from "./routes/metrics.route.ts";
import { traceScoresRoutes } from "./routes/trace-scores.route.ts";
import { tracesRoutes } from "./routes/traces.route.ts";
import { alertsRoutes } from "./routes/alerts.route.ts";
import { webhooksRoutes } from "./routes/webhooks.route.ts";
import { validationRoutes } from "./routes/validation.route.ts";
import { registerUi, type UiOptions } from "./ui.ts";
import { datasetsRoutes } from "./routes/datasets.route.ts";
import { experimentsRoutes } from "./routes/experiments.route.ts";
import { experimentRunsRoutes } from "./routes/experiment-runs.route.ts";
import { replaysRoutes } from "./routes/replays.route.ts";
import { runnersRoutes } from "./routes/runners.route.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The project of the caller's API key (the default project when auth is off). */
    projectId: string;
  }
}

export interface ApiDeps {
  database: Database;
  authenticate: Authenticator;
  /** The service's pino logger; request and error logs go through it (silent when omitted). */
  log?: Logger;
  /** Clock for the default metrics window (the last 24 hours); Date.now unless a test injects one. */
  now?: () => number;
  /**
   * Producer for `trace.score`: POST /traces/:id/outcome enqueues the re-score at once. Optional:
   * without it (or with Redis down) the stored score request is left to the worker's sweeper.
   */
  queue?: JobQueue;
  /** Prometheus registry for /metrics (the all-in-one process shares one); a fresh one by default. */
  registry?: Registry;
  /**
   * False while main.ts still waits for the database at start-up: /api/v1 answers 503 and /readyz
   * says why. Always started when omitted.
   */
  started?: () => boolean;
  /**
   * Seals the secrets Crux stores (CRUX_SECRET_KEY): judge provider keys (none can be stored
   * without it) and webhook signing secrets (stored as they are without it). Default: none.
   */
  secretBox?: SecretBox | null;
  /** Kappa bar and minimum labels for judge validation (CRUX_VALIDATION_*); .6 and 20 when omitted. */
  validationBar?: ValidationBar;
  /** How long a rotated-out webhook secret still signs deliveries beside the new one (CRUX_WEBHOOK_SECRET_OVERLAP_MS); 24 h when omitted. */
  webhookSecretOverlapMs?: number;
  /** Which non-public addresses webhooks and project judge base URLs may reach (CRUX_ALLOW_PRIVATE_TARGETS). Default: none. */
  privateTargets?: PrivateTargets;
  /** The judges' service default (env). Default: no service default model, sampling 0.1, a $5 daily budget. */
  judges?: { defaults: JudgeServiceDefaults };
  /** The web UI at `/` (ui.ts). Default: the built services/web, auth on. */
  ui?: UiOptions;
}

const defaultWebhookSecretOverlapMs = 86_400_000;

const noJudgeDefaults: JudgeServiceDefaults = { model: null, samplingShare: 0.1, dailyBudgetUsd: 5 };

const noQueryParameters = z.strictObject({});

export async function buildApiApp(deps: ApiDeps) {
  // Fastify 5 takes a ready logger as loggerInstance; `logger` accepts only options and rejects an instance at start.
  const app = Fastify({
    loggerInstance: deps.log ?? silentLogger(),
    logController: new OneLinePerRequest(),
    requestTimeout: 30_000,
    bodyLimit: 1_048_576,
    // A path the router cannot decode (FST_ERR_BAD_URL) never reaches a hook: answered in the API's error shape.
    frameworkErrors: (err, _req, reply) => {
      const why = err.code === "FST_ERR_BAD_URL" ? "a malformed percent-encoding in the path" : err.message;
      const body: ErrorBody = { code: "invalid_request", message: `${why}: send the path in its plain form` };
      void (reply as FastifyReply).code(errorStatus.invalid_request).send(body);
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const started = deps.started ?? (() => true);

  // Every API route rejects unknown query parameters (a typo like `servce=` must not silently return
  // everything): routes that take none get an empty strict schema; the others declare strictObject.
  app.addHook("onRoute", (route) => {
    if (!route.url.startsWith("/api/v1/")) return;
    route.schema ??= {};
    route.schema.querystring ??= noQueryParameters;
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: "Crux API", description: "Evaluation results of multi-agent LLM systems from their OpenTelemetry traces.", version: "0.1.0" },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" }, apiKey: { type: "apiKey", in: "header", name: "x-api-key" } } },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: "/api/docs" });

  app.decorateRequest("projectId", "");
  guardRouting(app);

  app.setErrorHandler(apiErrorHandler);
  const ui = await registerUi(app, deps.ui ?? { authRequired: true });
  app.setNotFoundHandler((req, reply) => {
    if (ui.fallback(req, reply)) return;
    throw new ApiError("not_found", `no route ${req.method} ${req.url}`);
  });

  registerOperations(app, { database: deps.database, registry: deps.registry ?? createMetricsRegistry(), started });
  const log = deps.log ?? silentLogger();
  const validationBar = deps.validationBar ?? defaultValidationBar;
  const secretBox = deps.secretBox ?? null;
  const privateTargets = deps.privateTargets ?? "none";
  const secretOverlapMs = deps.webhookSecretOverlapMs ?? defaultWebhookSecretOverlapMs;
  await registerAuthenticatedScope(app, { authenticate: deps.authenticate, started }, async (api) => {
    await api.register(tracesRoutes({ database: deps.database }));
    await api.register(traceScoresRoutes({ database: deps.database, queue: deps.queue, log, validationBar }));
    await api.register(metricsRoutes({ database: deps.database, now: deps.now ?? Date.now, validationBar }));
    await api.register(validationRoutes({ database: deps.database, validationBar }));
    await api.register(configRoutes({ database: deps.database }));
    await api.register(alertsRoutes({ database: deps.database, queue: deps.queue, log }));
    await api.register(datasetsRoutes({ database: deps.database }));
    await api.register(experimentsRoutes({ database: deps.database }));
    await api.register(experimentRunsRoutes({ database: deps.database, queue: deps.queue, log }));
    await api.register(replaysRoutes({ database: deps.database, queue: deps.queue, log }));
    await api.register(runnersRoutes({ database: deps.database, secretBox, privateTargets }));
    await api.register(webhooksRoutes({ database: deps.database, queue: deps.queue, log, secretBox, privateTargets, secretOverlapMs }));
    await api.register(
      judgeRoutes({
        database: deps.database,
        defaults: deps.judges?.defaults ?? noJudgeDefaults,
        secretBox,
        privateTargets,
        queue: deps.queue,
        now: deps.now ?? Date.now,
      }),
    );
  });
  return app;
}

/**
 * One log line per request, once answered (Fastify's default writes two: received and completed).
 * Probes and scrapes log from warn up (operations.ts), so they write none unless they fail.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const line = { method: req.method, url: req.url, route: routeOf(req), status: reply.statusCode, durationMs: Math.round(reply.elapsedTime) };
    if (error) req.log.error({ ...line, errorClass: error.constructor.name }, "request failed");
    else req.log.info(line, "request");
  }
}

function silentLogger(): Logger {
  return createLogger({ level: "silent", name: "crux-api" });
}
