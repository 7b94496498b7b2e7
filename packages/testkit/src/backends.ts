/**
 * The two backends end-to-end tests run on: the embedded default (PGlite +
 * in-process queue) always, and Postgres + BullMQ/Redis when DATABASE_URL and
 * REDIS_URL are set (as in CI). Each database is fresh; each queue has its own
 * key prefix, purged by the test once closed.
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@crux/db";
import { createBullmqQueue, createInProcessQueue, purgeQueuePrefix, type JobQueue } from "@crux/queue";
import { testDatabases } from "./db.ts";

export interface Backend {
  name: "embedded" | "postgres+redis";
  createDatabase(): Promise<Database>;
  /** A queue with a fresh key prefix, and how to delete what it left in Redis once closed. */
  createQueue(): { queue: JobQueue; purge(): Promise<unknown> };
}

export interface TestQueue {
  name: "in-process" | "bullmq";
  /** A queue with a fresh key prefix, and how to delete what it left in Redis once closed. */
  create(): { queue: JobQueue; purge(): Promise<unknown> };
}

/** Both queue adapters: in-process always, BullMQ when REDIS_URL is set (for tests that cross every database with every queue). */
export function testQueues(opts: { queuePrefix?: string } = {}): TestQueue[] {
  const list: TestQueue[] = [{ name: "in-process", create: () => ({ queue: createInProcessQueue(), purge: async () => {} }) }];
  const redisUrl = process.env.REDIS_URL;
  if (redisUrl) {
    list.push({
      name: "bullmq",
      create: () => {
        const prefix = `${opts.queuePrefix ?? "test"}-${randomUUID()}`;
        return { queue: createBullmqQueue({ redisUrl, prefix }), purge: () => purgeQueuePrefix(redisUrl, prefix) };
      },
    });
  }
  return list;
}

export function testBackends(opts: { queuePrefix?: string; redisUrl?: string | undefined } = {}): Backend[] {
  const dbs = testDatabases();
  const list: Backend[] = [];
  const pglite = dbs.find((d) => d.name === "pglite");
  if (pglite)
    list.push({ name: "embedded", createDatabase: () => pglite.create(), createQueue: () => ({ queue: createInProcessQueue(), purge: async () => {} }) });
  const pg = dbs.find((d) => d.name === "postgres");
  const redisUrl = "redisUrl" in opts ? opts.redisUrl : process.env.REDIS_URL;
  if (pg && redisUrl) {
    list.push({
      name: "postgres+redis",
      createDatabase: () => pg.create(),
      createQueue: () => {
        const prefix = `${opts.queuePrefix ?? "test"}-${randomUUID()}`;
        return { queue: createBullmqQueue({ redisUrl, prefix }), purge: () => purgeQueuePrefix(redisUrl, prefix) };
      },
    });
  }
  return list;
}
