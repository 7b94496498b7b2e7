/**
 * The operational routes on the OTLP/HTTP port: liveness, readiness,
 * Prometheus metrics, and a 404 that says where things are (a typo of
 * /v1/traces, or the REST API asked on the wrong port).
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { scrape, type ReadinessProbe, type Registry } from "@crux/runtime";

export interface OpsRoutesOptions {
  readiness: ReadinessProbe;
  registry: Registry;
  /** Port of the REST API, for the hint on /api/ paths; unknown when the API runs elsewhere. */
  apiPort?: number;
}

export function registerOpsRoutes(app: FastifyInstance, opts: OpsRoutesOptions): void {
  // Live while the process serves requests; never depends on Postgres or Redis.
  app.get("/livez", async () => ({ status: "live" }));

  const ready = async (_req: unknown, reply: FastifyReply) => {
    const r = await opts.readiness();
    return reply.code(r.ready ? 200 : 503).send({ status: r.ready ? "ready" : "not_ready", checks: r.checks });
  };
  app.get("/readyz", ready);
  // Kept for probes configured before /livez and /readyz existed: answers like /readyz.
  app.get("/healthz", ready);

  app.get("/metrics", async (_req, reply) => {
    const { contentType, body } = await scrape(opts.registry);
    return reply.header("content-type", contentType).send(body);
  });

  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split("?")[0] ?? "";
    return reply.code(404).send({ code: "not_found", message: `no route ${req.method} ${path} here: ${hintFor(path, opts.apiPort)}` });
  });
}

function hintFor(path: string, apiPort: number | undefined): string {
  const traces = "OTLP/HTTP trace exports go to POST /v1/traces";
  if (path === "/api" || path.startsWith("/api/")) {
    const where = apiPort ? `on port ${apiPort}` : "on its own port (CRUX_API_PORT, default 8080)";
    return `this is the OTLP receiver; the REST API (/api/v1/...) listens ${where}. ${traces}`;
  }
  if (/^\/v1\/(metrics|logs|profiles)\/?$/.test(path)) return `Crux accepts traces only; ${traces}`;
  return `${traces}; this port also serves GET /livez, /readyz, /healthz and /metrics`;
}
