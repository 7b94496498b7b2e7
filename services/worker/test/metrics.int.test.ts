/**
 * The worker's metrics (on a registry passed in, as the all-in-one process
 * does) and its HTTP server: /metrics, /livez, /readyz.
 */
import { ensureProject, insertSpanBatch, setOutcomeOverride } from "@crux/db";
import { createMetricsRegistry, createReadiness } from "@crux/runtime";
import { createInProcessQueue } from "@crux/queue";
import { testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { startWorkerHttpServer } from "../src/http-server.ts";
import { createWorker } from "../src/worker.ts";
import { recordingLog, reportTrace, until } from "./traces.ts";

const pglite = testDatabases({ databaseUrl: undefined })[0]!;

describe("worker metrics", () => {
  it("counts completed jobs with their duration, sweeper re-enqueues, retries and jobs that ran out of attempts", async () => {
    const database = await pglite.create();
    const queue = createInProcessQueue({ jobDefaults: { "trace.settle": { attempts: 2, backoff: { type: "exponential", delay: 20 } } } });
    const registry = createMetricsRegistry({ processMetrics: false });
    const worker = createWorker({
      database,
      queue,
      registry,
      log: recordingLog().log,
      config: { CRUX_WORKER_CONCURRENCY: 2, CRUX_SWEEP_INTERVAL_MS: 3_600_000, CRUX_SWEEP_QUIET_MS: 0 },
    });
    const value = async (name: string, labels: Record<string, string> = {}) => {
      // A histogram's series are values of its base metric, named by metricName (…_count).
      const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name || name === `${m.name}_count`);
      const hit = metric?.values.find(
        (v) => ((v as { metricName?: string }).metricName ?? name) === name && Object.entries(labels).every(([k, x]) => v.labels[k] === x),
      );
      return hit?.value ?? 0;
    };
    try {
      await ensureProject(database, "p", "p");
      const spans = reportTrace({ startMs: Date.now() - 60_000, success: true });
      const traceId = spans[0]!.traceId;
      await insertSpanBatch(database, "p", spans);
      worker.start();
      expect(await worker.sweeper.sweepOnce()).toBe(1); // dirty, never settled: re-enqueued
      expect(await value("crux_worker_sweeper_reenqueued_total")).toBe(1);
      await until("the settle", async () => (await value("crux_worker_jobs_total", { queue: "trace.settle", outcome: "completed" })) === 1);
      expect(await value("crux_worker_job_duration_seconds_count", { queue: "trace.settle", outcome: "completed" })).toBe(1);

      // Storage gone: the first run is retried, the second is the last attempt.
      await setOutcomeOverride(database, "p", traceId, { success: false });
      await database.close();
      await queue.enqueue("trace.settle", { projectId: "p", traceId }, { delayMs: 0 });
      await until("the last attempt", async () => (await value("crux_worker_job_failures_total", { queue: "trace.settle", reason: "exhausted" })) === 1);
      expect(await value("crux_worker_job_retries_total", { queue: "trace.settle" })).toBe(1);
      expect(await value("crux_worker_jobs_total", { queue: "trace.settle", outcome: "retry" })).toBe(1);
      expect(await value("crux_worker_jobs_total", { queue: "trace.settle", outcome: "failed" })).toBe(1);
    } finally {
      await worker.stop();
      await queue.close(2_000);
      await worker.close();
      await database.close();
    }
  }, 60_000);
});

describe("worker HTTP server", () => {
  it("serves /metrics, /livez always, and /readyz 503 naming the dependency that does not answer", async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    let redisUp = false;
    const readiness = createReadiness({
      postgres: async () => {},
      redis: async () => {
        if (!redisUp) throw new Error("connection is reconnecting");
      },
    });
    const server = await startWorkerHttpServer({ host: "127.0.0.1", port: 0, registry, readiness });
    const get = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
      return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
    };
    try {
      createWorker({
        database: await pglite.create(),
        queue: createInProcessQueue(),
        registry,
        log: recordingLog().log,
        config: { CRUX_WORKER_CONCURRENCY: 1, CRUX_SWEEP_INTERVAL_MS: 3_600_000, CRUX_SWEEP_QUIET_MS: 0 },
      });
      const metrics = await get("/metrics");
      expect(metrics.status).toBe(200);
      expect(metrics.type).toMatch(/^text\/plain/);
      for (const name of [
        "crux_worker_jobs_total",
        "crux_worker_job_duration_seconds",
        "crux_worker_job_retries_total",
        "crux_worker_job_failures_total",
        "crux_worker_sweeper_reenqueued_total",
        "crux_worker_milestone_budget_exhausted_total",
      ]) {
        expect(metrics.body).toContain(`# TYPE ${name} `);
      }
      expect(await get("/livez")).toMatchObject({ status: 200 });
      const down = await get("/readyz");
      expect(down.status).toBe(503);
      expect(JSON.parse(down.body)).toMatchObject({
        status: "not_ready",
        checks: { postgres: { ok: true }, redis: { ok: false, error: "connection is reconnecting" } },
      });
      redisUp = true;
      expect(await get("/readyz")).toMatchObject({ status: 200 });
      expect((await get("/nope")).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
