/**
 * The API as a Fastify app built from explicit dependencies (habits.md §1):
 * zod-validated routes, one error shape, OpenAPI at /api/docs.
 */
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import { PermanentError } from "@crux/core";
import type { Database } from "@crux/db";
import { apiKeyFromHeaders, createLogger, type Authenticator, type Logger } from "@crux/runtime";
import Fastify from "fastify";
import { hasZodFastifySchemaValidationErrors, jsonSchemaTransform, serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { ApiError, type ErrorBody } from "./errors.ts";
import { configRoutes } from "./routes/config.route.ts";
import { metricsRoutes } from "./routes/metrics.route.ts";
import { traceScoresRoutes } from "./routes/trace-scores.route.ts";
import { tracesRoutes } from "./routes/traces.route.ts";

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
}

export async function buildApiApp(deps: ApiDeps) {
  // Fastify 5 takes a ready logger as loggerInstance; `logger` accepts only options and rejects an instance at start.
  const app = Fastify({ loggerInstance: deps.log ?? silentLogger(), requestTimeout: 30_000, bodyLimit: 1_048_576 });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

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
  app.addHook("onRequest", async (req) => {
    if (!req.url.startsWith("/api/v1/")) return;
    const auth = await deps.authenticate(apiKeyFromHeaders((n) => firstHeader(req.headers[n])));
    if (!auth.ok) throw new ApiError(401, "unauthenticated", auth.reason);
    req.projectId = auth.projectId;
  });

  app.setErrorHandler((err, req, reply) => {
    let status = 500;
    let body: ErrorBody = { code: "internal", message: "internal error" };
    if (err instanceof ApiError) {
      status = err.statusCode;
      body = { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) };
    } else if (err instanceof PermanentError) {
      // Bad cursor (400) or a duplicate configuration scope (409), decided in @crux/db.
      status = err.code === "conflict" ? 409 : 400;
      body = { code: err.code, message: err.message };
    } else if (hasZodFastifySchemaValidationErrors(err)) {
      status = 400;
      const issues = err.validation.map((v) => ({ path: v.instancePath || "", message: v.message }));
      body = { code: "invalid_request", message: issues.map((i) => `${err.validationContext ?? "request"}${i.path ? ` ${i.path}` : ""}: ${i.message}`).join("; "), details: issues };
    } else if (typeof (err as { statusCode?: number }).statusCode === "number" && (err as { statusCode: number }).statusCode < 500) {
      status = (err as { statusCode: number }).statusCode;
      body = { code: "invalid_request", message: (err as Error).message };
    } else {
      req.log.error({ err }, "unhandled API error");
    }
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ code: "not_found", message: `no route ${req.method} ${req.url}` }));

  app.get("/healthz", { schema: { hide: true } }, async () => {
    await deps.database.ping();
    return { status: "ok" };
  });
  await app.register(tracesRoutes({ database: deps.database }), { prefix: "/api/v1" });
  await app.register(traceScoresRoutes({ database: deps.database }), { prefix: "/api/v1" });
  await app.register(metricsRoutes({ database: deps.database, now: deps.now ?? Date.now }), { prefix: "/api/v1" });
  await app.register(configRoutes({ database: deps.database }), { prefix: "/api/v1" });
  return app;
}

function silentLogger(): Logger {
  return createLogger({ level: "silent", name: "crux-api" });
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
