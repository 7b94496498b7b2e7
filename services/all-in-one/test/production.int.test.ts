/**
 * Production-path behaviour that only shows across processes or transports:
 * the receiver refuses to start with auth on and no API key, and gRPC exports
 * are authenticated like HTTP ones.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Metadata } from "@grpc/grpc-js";
import { OTLPTraceExporter as GrpcExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { createApiKey, ensureProject } from "@crux/db";
import { recordSpans } from "@crux/testkit";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { backends, getJson, startTestCrux } from "./harness.ts";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

function exportWith(exporter: GrpcExporter, spans: ReturnType<typeof recordSpans>): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, (r) => resolve(r)));
}

describe.each(backends())("gRPC auth on $name", (backend) => {
  it("a bad key is refused with UNAUTHENTICATED and nothing is stored; a good key is accepted", async () => {
    const crux = await startTestCrux(backend, { CRUX_AUTH: "true" });
    try {
      await ensureProject(crux.database, "grpc-team", "gRPC team");
      const { key } = await createApiKey(crux.database, "grpc-team", "grpc");
      const spans = recordSpans((t) => t.startSpan("grpc root").end());
      const traceId = spans[0]!.spanContext().traceId;

      const badMeta = new Metadata();
      badMeta.set("authorization", "Bearer wrong");
      const bad = await exportWith(new GrpcExporter({ url: crux.grpcAddress, metadata: badMeta }), spans);
      expect(bad.code).not.toBe(0);
      expect(String(bad.error?.message)).toMatch(/API key|UNAUTHENTICATED/i);
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`, { "x-api-key": key })).status).toBe(404);

      const goodMeta = new Metadata();
      goodMeta.set("x-api-key", key);
      const good = await exportWith(new GrpcExporter({ url: crux.grpcAddress, metadata: goodMeta }), spans);
      expect(good.code).toBe(0);
      expect((await getJson(`${crux.apiUrl}/api/v1/traces/${traceId}`, { "x-api-key": key })).status).toBe(200);
    } finally {
      await crux.stop();
    }
  });
});

describe.runIf(process.env.DATABASE_URL)("production receiver start-up", () => {
  it("refuses to start with auth on and no API key, saying how to fix it", async () => {
    const name = `crux_start_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      const migrate = await run(["services/admin/src/main.ts", "migrate"], { DATABASE_URL: url.toString() });
      expect(migrate.code).toBe(0);
      const started = await run(["services/receiver/src/main.ts"], {
        DATABASE_URL: url.toString(),
        REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        CRUX_OTLP_HTTP_PORT: "0",
        CRUX_OTLP_GRPC_PORT: "0",
      });
      expect(started.code).toBe(1);
      expect(started.output).toMatch(/no API keys exist/);
      expect(started.output).toMatch(/CRUX_AUTH=false/);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 120_000);
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
