/**
 * The worker's small HTTP server (node:http): Prometheus /metrics, /livez
 * (the event loop answers) and /readyz (Postgres and Redis answer).
 */
import { createServer, type Server } from "node:http";
import { scrape, type ReadinessProbe, type Registry } from "@crux/runtime";

export interface WorkerHttpServer {
  port: number;
  close(): Promise<void>;
}

export async function startWorkerHttpServer(opts: { host: string; port: number; registry: Registry; readiness: ReadinessProbe }): Promise<WorkerHttpServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const send = (status: number, contentType: string, body: string) => {
      res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" });
      res.end(body);
    };
    if (req.method !== "GET" && req.method !== "HEAD")
      return send(405, "application/json", JSON.stringify({ code: "method_not_allowed", message: "GET only" }));
    if (path === "/livez") return send(200, "application/json", JSON.stringify({ status: "live" }));
    if (path === "/readyz") {
      void opts.readiness().then(
        (r) => send(r.ready ? 200 : 503, "application/json", JSON.stringify({ status: r.ready ? "ready" : "not_ready", checks: r.checks })),
        (err: unknown) => send(503, "application/json", JSON.stringify({ status: "not_ready", error: String(err) })),
      );
      return;
    }
    if (path === "/metrics") {
      void scrape(opts.registry).then(
        ({ contentType, body }) => send(200, contentType, body),
        (err: unknown) => send(500, "text/plain", `metrics scrape failed: ${String(err)}`),
      );
      return;
    }
    send(404, "application/json", JSON.stringify({ code: "not_found", message: "GET /metrics, /livez or /readyz" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
