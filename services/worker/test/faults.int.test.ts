/**
 * The production worker process survives its dependencies failing (hardening
 * issue, item 2), without a restart:
 * - Postgres connections dropped while it settles (pg_terminate_backend on
 *   its own connections, found by database and application_name): the
 *   process stays alive and every trace ends scored;
 * - Postgres down when it starts (a TCP proxy in front of Postgres, cut):
 *   it waits, then comes up by itself;
 * - Redis restarted (a redis-server this test starts, kills and starts again
 *   on the same port, empty): jobs enqueued afterwards are processed by the
 *   same process.
 * The machine's shared Postgres and Redis are never stopped.
 */
import { randomUUID } from "node:crypto";
import { ensureProject, insertSpanBatch, schema, type Database, type PostgresDatabase } from "@crux/db";
import { createBullmqQueue, purgeQueuePrefix, type JobQueue } from "@crux/queue";
import { startTcpProxy, testDatabases } from "@crux/testkit";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { reportTrace } from "./traces.ts";
import { eventually, freePort, startRedisServer, startWorkerProcess } from "./worker-process.ts";

const PROJECT = "p-faults";
const postgres = testDatabases().find((f) => f.name === "postgres");

function urlOf(database: Database): string {
  return (database as PostgresDatabase).pool.options.connectionString!;
}

async function seedTraces(database: Database, n: number): Promise<string[]> {
  await ensureProject(database, PROJECT, PROJECT);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const spans = reportTrace({ startMs: Date.now() - 60_000, success: i % 2 === 0, saveFails: i % 3 === 0 });
    await insertSpanBatch(database, PROJECT, spans);
    ids.push(spans[0]!.traceId);
  }
  return ids;
}

async function scoredCount(database: Database, traceIds: string[]): Promise<number> {
  const wanted = new Set(traceIds);
  const rows = await database.db.select({ traceId: schema.traceScores.traceId }).from(schema.traceScores);
  return rows.filter((r) => wanted.has(r.traceId)).length;
}

async function enqueueSettles(queue: JobQueue, traceIds: string[]): Promise<void> {
  await queue.enqueueMany(
    "trace.settle",
    traceIds.map((traceId) => ({ projectId: PROJECT, traceId })),
    { delayMs: 0 },
  );
}

describe.runIf(postgres && process.env.REDIS_URL)("worker process with Postgres connections dropped while it settles", () => {
  it("stays alive and scores every trace while its connections are terminated again and again", async () => {
    const database = await postgres!.create();
    const redisUrl = process.env.REDIS_URL!;
    const prefix = `test-faults-${randomUUID()}`;
    const producer = createBullmqQueue({ redisUrl, prefix });
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const dbName = new URL(urlOf(database)).pathname.slice(1);
    const worker = startWorkerProcess({
      DATABASE_URL: urlOf(database),
      REDIS_URL: redisUrl,
      CRUX_QUEUE_PREFIX: prefix,
      CRUX_WORKER_CONCURRENCY: "4",
      CRUX_SWEEP_INTERVAL_MS: "500",
      CRUX_SWEEP_QUIET_MS: "0",
    });
    try {
      const traceIds = await seedTraces(database, 60);
      await eventually("the worker to be ready", async () => ((await worker.get("/readyz")).status === 200 ? true : undefined));
      // Terminate every connection of the worker every 25 ms for 6 s: in the middle of queries and of
      // transactions (a checked-out client between two statements), and while idle in the pool. The
      // kills start before the settles are enqueued, so they land while jobs run however fast the
      // machine scores: a kill counts as in flight when its backend was running a statement or held a
      // transaction open, and the first such kill also records how many traces were still unscored.
      let terminated = 0;
      let inFlightKills = 0;
      let unscoredAtFirstInFlightKill: number | null = null;
      const killing = (async () => {
        const until = Date.now() + 6_000;
        while (Date.now() < until && worker.child.exitCode === null) {
          const r = await admin.query(
            `SELECT count(*) FILTER (WHERE state IN ('active', 'idle in transaction'))::int AS busy,
                    count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n
               FROM pg_stat_activity WHERE datname = $1 AND application_name = 'crux-worker'`,
            [dbName],
          );
          terminated += Number(r.rows[0].n);
          const busy = Number(r.rows[0].busy);
          inFlightKills += busy;
          if (busy > 0 && unscoredAtFirstInFlightKill === null) unscoredAtFirstInFlightKill = traceIds.length - (await scoredCount(database, traceIds));
          await new Promise((r) => setTimeout(r, 25));
        }
      })();
      await enqueueSettles(producer, traceIds);
      await killing;
      expect(worker.child.exitCode, `the worker died:\n${worker.output().slice(-3_000)}`).toBeNull();
      expect(terminated).toBeGreaterThan(20);
      // The premise, whatever the machine's speed: kills landed on statements and transactions in flight
      // while traces were still unscored (a quiet machine may well score them all within the 6 s).
      expect(inFlightKills).toBeGreaterThan(0);
      expect(unscoredAtFirstInFlightKill).toBeGreaterThan(0);

      // Retries and the sweeper finish the rest, in the same process.
      await eventually("every trace scored", async () => ((await scoredCount(database, traceIds)) === traceIds.length ? true : undefined), 90_000, 250);
      expect(worker.child.exitCode, `the worker died:\n${worker.output().slice(-3_000)}`).toBeNull();
      const dirty = (await database.db.select().from(schema.traces)).filter((t) => t.dirty);
      expect(dirty).toHaveLength(0);
      expect(worker.output()).toMatch(/postgres connection lost; the next query reconnects/);
      expect((await worker.get("/livez")).status).toBe(200);
      expect((await worker.get("/readyz")).status).toBe(200);
      expect((await worker.get("/metrics")).body).toMatch(/crux_worker_jobs_total\{[^}]*outcome="completed"[^}]*\} [1-9]/);
      expect(await worker.stop(), worker.output().slice(-4_000)).toBe(0);
    } finally {
      await worker.stop();
      await producer.close(2_000);
      await purgeQueuePrefix(redisUrl, prefix);
      await admin.end();
      await database.close();
    }
  }, 240_000);
});

describe.runIf(postgres)("worker process started with Postgres down, then through a Redis restart", () => {
  it("waits for Postgres, then processes jobs enqueued after Redis came back empty, in the same process", async () => {
    const database = await postgres!.create();
    const target = new URL(urlOf(database));
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.down();
    const redisPort = await freePort();
    let redis = await startRedisServer(redisPort);
    const prefix = `test-faults-${randomUUID()}`;
    const producer = createBullmqQueue({ redisUrl: redis.url, prefix });
    const worker = startWorkerProcess({
      DATABASE_URL: proxy.urlFor(target.toString()),
      REDIS_URL: redis.url,
      CRUX_QUEUE_PREFIX: prefix,
      CRUX_SWEEP_INTERVAL_MS: "3600000",
    });
    try {
      const [first, second] = await seedTraces(database, 2);
      // Postgres unreachable: alive, not ready, waiting (not exited).
      await eventually("the wait to be logged", async () => (/postgres unavailable at start; waiting/.test(worker.output()) ? true : undefined));
      expect((await worker.get("/livez")).status).toBe(200);
      const notReady = await worker.get("/readyz");
      expect(notReady.status).toBe(503);
      expect(JSON.parse(notReady.body).checks.postgres.ok).toBe(false);
      expect(worker.child.exitCode).toBeNull();

      await proxy.up();
      await eventually("the worker to start", async () => (/"msg":"worker started"/.test(worker.output()) ? true : undefined));
      await enqueueSettles(producer, [first!]);
      await eventually("the first trace scored", async () => ((await scoredCount(database, [first!])) === 1 ? true : undefined));

      // Redis dies and comes back empty on the same port.
      await redis.kill();
      await eventually("readiness to see Redis down", async () => {
        const r = await worker.get("/readyz");
        return r.status === 503 && JSON.parse(r.body).checks.redis.ok === false ? true : undefined;
      });
      redis = await startRedisServer(redisPort);
      await eventually("readiness to see Redis back", async () => ((await worker.get("/readyz")).status === 200 ? true : undefined));
      await eventually("the enqueue after the restart", async () => {
        await enqueueSettles(producer, [second!]);
        return true;
      });
      await eventually("the second trace scored", async () => ((await scoredCount(database, [second!])) === 1 ? true : undefined), 60_000, 200);
      expect(worker.child.exitCode, worker.output().slice(-3_000)).toBeNull();
      expect(await worker.stop(), worker.output().slice(-4_000)).toBe(0);
    } finally {
      await worker.stop();
      await producer.close(1_000);
      await redis.kill();
      await proxy.close();
      await database.close();
    }
  }, 240_000);
});
