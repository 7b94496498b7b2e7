/**
 * docker-compose.yml checked against the code it runs (there is no Docker
 * engine here): every command is a package.json script, every service has a
 * restart policy and every long-running one a health check, depends_on
 * conditions are satisfiable, each service's environment is exactly what its
 * config schema accepts, and the health-check commands themselves succeed on
 * 200 and fail on 503 from /readyz.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadConfig } from "@crux/config";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { z } from "zod";
// The production entry points' schemas (the services export only their shared ones).
import { apiMainConfigSchema } from "../../api/src/config.ts";
import { receiverMainConfigSchema } from "../../receiver/src/config.ts";
import { workerMainConfigSchema } from "../../worker/src/config.ts";
import { repoRoot } from "./processes.ts";

interface ComposeService {
  build?: string;
  image?: string;
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(join(repoRoot, "docker-compose.yml"), "utf8")) as { services: Record<string, ComposeService> };
const services = compose.services;
const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const crux = Object.entries(services).filter(([, s]) => s.build !== undefined);

/** A service's environment as compose passes it: `${NAME:-default}` from the shell's variables, else the default. */
function interpolated(env: Record<string, string> = {}, shell: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => shell[name] ?? fallback)]),
  );
}

/** What each Crux service's script reads its environment with. */
const schemaOf: Record<string, z.ZodObject | "admin"> = {
  "start:receiver": receiverMainConfigSchema,
  "start:worker": workerMainConfigSchema,
  "start:api": apiMainConfigSchema,
  migrate: "admin",
};
const readinessPort = {
  receiver: loadConfig(receiverMainConfigSchema, { DATABASE_URL: "postgres://x/y", REDIS_URL: "redis://x" }).CRUX_OTLP_HTTP_PORT,
  api: loadConfig(apiMainConfigSchema, { DATABASE_URL: "postgres://x/y" }).CRUX_API_PORT,
  worker: 9464, // the worker's metrics port (no HTTP server otherwise)
} as Record<string, number>;

describe("docker-compose.yml", () => {
  it("runs only package.json scripts (compose commands and the Dockerfile's CMD)", () => {
    expect(crux.map(([name]) => name).sort()).toEqual(["api", "migrate", "receiver", "worker"]);
    for (const [name, service] of crux) {
      expect(service.command?.[0], name).toBe("pnpm");
      expect(Object.keys(scripts), name).toContain(service.command![1]);
    }
    const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(readFileSync(join(repoRoot, "Dockerfile"), "utf8"))?.[1];
    const dockerCmd = JSON.parse(cmd!) as string[];
    expect(dockerCmd[0]).toBe("pnpm");
    expect(Object.keys(scripts)).toContain(dockerCmd[1]);
  });

  it("gives every service a restart policy and every long-running one a health check", () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === "migrate") {
        expect(service.restart).toBe("on-failure"); // one-shot: exits 0 when done
        expect(service.healthcheck).toBeUndefined();
      } else {
        expect(service.restart, name).toBe("unless-stopped");
        expect(service.healthcheck?.test.length, name).toBeGreaterThan(0);
      }
    }
  });

  it("has satisfiable depends_on conditions, and every Crux service waits for the migration", () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(services[dep], `${name} -> ${dep}`).toBeDefined();
        if (condition === "service_healthy") expect(services[dep]!.healthcheck, `${name} -> ${dep}`).toBeDefined();
        else expect(condition, `${name} -> ${dep}`).toBe("service_completed_successfully");
        if (condition === "service_completed_successfully") expect(services[dep]!.restart).toBe("on-failure");
      }
    }
    for (const name of ["receiver", "worker", "api"]) expect(services[name]!.depends_on?.migrate?.condition).toBe("service_completed_successfully");
    for (const name of ["receiver", "worker"]) expect(services[name]!.depends_on?.redis?.condition).toBe("service_healthy");
  });

  it("sets only variables the service's config schema reads, and enough for it to start", () => {
    const adminSource = readFileSync(join(repoRoot, "services/admin/src/main.ts"), "utf8");
    for (const [name, service] of crux) {
      const env = interpolated(service.environment);
      const schema = schemaOf[service.command![1]!];
      if (schema === undefined) throw new Error(`${name}: no config schema known for ${service.command![1]}`);
      if (schema === "admin") {
        // Its schema is inline in its main.ts: every name must be a key there.
        for (const key of Object.keys(env)) expect(adminSource, `${name}: ${key}`).toMatch(new RegExp(`\\b${key}:\\s*z\\.`));
        continue;
      }
      for (const key of Object.keys(env)) expect(Object.keys(schema.shape), `${name}: ${key}`).toContain(key);
      expect(() => loadConfig(schema, env), name).not.toThrow();
      // With the variables a user sets in the shell or .env (the service secret) too.
      expect(() => loadConfig(schema, interpolated(service.environment, { CRUX_SECRET_KEY: "s".repeat(32) })), name).not.toThrow();
    }
  });

  it("publishes the ports the services listen on", () => {
    const receiver = loadConfig(receiverMainConfigSchema, interpolated(services.receiver!.environment));
    expect(services.receiver!.ports).toEqual([
      `${receiver.CRUX_OTLP_HTTP_PORT}:${receiver.CRUX_OTLP_HTTP_PORT}`,
      `${receiver.CRUX_OTLP_GRPC_PORT}:${receiver.CRUX_OTLP_GRPC_PORT}`,
    ]);
    const api = loadConfig(apiMainConfigSchema, interpolated(services.api!.environment));
    expect(services.api!.ports).toEqual([`${api.CRUX_API_PORT}:${api.CRUX_API_PORT}`]);
  });

  it("health checks ask /readyz on each service's port with node, passing on 200 and failing on 503", async () => {
    let status = 200;
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? "");
      res.writeHead(status).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      for (const name of ["receiver", "worker", "api"]) {
        const [kind, command, flag, script] = services[name]!.healthcheck!.test;
        expect([kind, command, flag], name).toEqual(["CMD", "node", "-e"]);
        expect(script, name).toContain(`http://127.0.0.1:${readinessPort[name]}/readyz`);
        const local = script!.replace(`:${readinessPort[name]}/`, `:${port}/`);
        const run = () =>
          promisify(execFile)(process.execPath, ["-e", local]).then(
            () => 0,
            (err: { code: number }) => err.code,
          );
        status = 200;
        expect(await run(), `${name} on 200`).toBe(0);
        status = 503;
        expect(await run(), `${name} on 503`).toBe(1);
      }
      expect(new Set(paths)).toEqual(new Set(["/readyz"]));
      server.close();
      // Nothing listening: fails rather than hanging.
      const [, , , script] = services.api!.healthcheck!.test;
      const refused = await promisify(execFile)(process.execPath, ["-e", script!.replace(`:${readinessPort.api}/`, `:${port}/`)]).then(
        () => 0,
        (err: { code: number }) => err.code,
      );
      expect(refused).toBe(1);
    } finally {
      server.close();
    }
  });
});
