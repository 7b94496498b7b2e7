/**
 * Operational endpoints outside /api/v1, unauthenticated: /livez (the process
 * runs; never touches Postgres, so an orchestrator does not restart a healthy
 * API during an outage), /readyz and /healthz (Postgres answers and start-up
 * finished; 503 naming the failed dependency otherwise), and Prometheus
 * /metrics: requests by route pattern (never the raw URL, whose ids would make
 * one series per trace), method and status class, plus process metrics.
 */
import { describeStorageError, type Database } from "@crux/db";
import { Counter, createReadiness, durationBuckets, Histogram, type Logger, type Registry, scrape } from "@crux/runtime";
import type { FastifyInstance, FastifyReply, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from "fastify";
import { routeOf } from "./error-handler.ts";

export interface OperationsDeps {
  database: Database;
  registry: Registry;
  /** False while main.ts still waits for the database at start-up. */
  started: () => boolean;
}

const requestLabels = ["method", "route", "status_class"] as const;

/** A registry shared between services (all-in-one) or apps (tests) may already hold the instrument. */
function counter(registry: Registry, name: string, help: string): Counter<(typeof requestLabels)[number]> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<(typeof requestLabels)[number]>;
  return new Counter({ name, help, labelNames: requestLabels, registers: [registry] });
}

function histogram(registry: Registry, name: string, help: string): Histogram<(typeof requestLabels)[number]> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Histogram<(typeof requestLabels)[number]>;
  return new Histogram({ name, help, labelNames: requestLabels, buckets: durationBuckets, registers: [registry] });
}

type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>;

export function registerOperations(app: App, deps: OperationsDeps): void {
  const requests = counter(deps.registry, "crux_api_requests_total", "API requests answered, by route pattern, method and status class");
  const duration = histogram(deps.registry, "crux_api_request_duration_seconds", "API request latency in seconds, by route pattern, method and status class");
  app.addHook("onResponse", async (req, reply) => {
    const labels = { method: req.method, route: routeOf(req), status_class: `${Math.floor(reply.statusCode / 100)}xx` };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });

  const readiness = createReadiness({
    startup: async () => {
      if (!deps.started()) throw new Error("starting: waiting for the database to answer and its schema check");
    },
    database: async () => {
      try {
        await deps.database.ping();
      } catch (err) {
        throw new Error(describeStorageError(err).message, { cause: err });
      }
    },
  });
  const ready = async (_req: unknown, reply: FastifyReply) => {
    const result = await readiness();
    return reply.code(result.ready ? 200 : 503).send({ status: result.ready ? "ok" : "unavailable", checks: result.checks });
  };

  // Not in the OpenAPI document; probed every few seconds, so logged only from warn up (no line per probe).
  const hidden = { schema: { hide: true }, logLevel: "warn" as const };
  app.get("/livez", hidden, async () => ({ status: "ok" }));
  app.get("/readyz", hidden, ready);
  // Kept for existing probes: the readiness answer (503, not 500, while Postgres is down).
  app.get("/healthz", hidden, ready);
  app.get("/metrics", hidden, async (_req, reply) => {
    const { contentType, body } = await scrape(deps.registry);
    return reply.type(contentType).send(body);
  });
}
