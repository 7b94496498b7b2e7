/**
 * `pnpm start:worker` as a supervisor stops it: SIGTERM to its whole process group. pnpm passes
 * the signal on to the worker, which so gets it twice within milliseconds; the worker must still
 * drain and exit 0, not take the copy for an operator's second signal and exit 1 mid-shutdown.
 */
import { randomUUID } from "node:crypto";
import { createDatabase, migrate } from "@crux/db";
import { purgeQueuePrefix } from "@crux/queue";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killLeftovers, spawnScript } from "./processes.ts";

const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;

describe.runIf(databaseUrl && redisUrl)("pnpm start:worker stopped through its process group (Postgres + Redis)", () => {
  const name = `crux_sig_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const prefix = `test-sig-${randomUUID()}`;
  const url = new URL(databaseUrl ?? "postgres://unused");
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: databaseUrl });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const database = await createDatabase({ url: url.toString() });
    await migrate(database);
    await database.close();
  });
  afterEach(killLeftovers);
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await purgeQueuePrefix(redisUrl!, prefix);
  });

  it("SIGTERM to the group drains and exits 0, however soon pnpm's copy of the signal follows", async () => {
    const env = { DATABASE_URL: url.toString(), REDIS_URL: redisUrl!, CRUX_QUEUE_PREFIX: prefix, CRUX_WORKER_METRICS_PORT: "0" };
    for (const echoAfterMs of [null, 5]) {
      const worker = spawnScript("start:worker", [], env);
      await worker.waitFor(/worker started/);
      worker.signalGroup("SIGTERM");
      // pnpm passes the group's SIGTERM on only sometimes before the worker handled the first; this sends that copy every time.
      if (echoAfterMs !== null) {
        setTimeout(() => {
          try {
            worker.signalGroup("SIGTERM");
          } catch {
            // the group already exited: nothing to echo to
          }
        }, echoAfterMs);
      }
      expect(await worker.exited, worker.stdout() + worker.stderr()).toEqual({ code: 0, signal: null });
      expect(worker.stdout() + worker.stderr()).toMatch(/shutdown complete/);
      expect(worker.stdout() + worker.stderr()).not.toMatch(/ELIFECYCLE/);
    }
  }, 240_000);
});
