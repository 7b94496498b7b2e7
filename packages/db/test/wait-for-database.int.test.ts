/**
 * Production services start while Postgres is down and come up by themselves
 * once it answers (waitForDatabase); a stale schema still fails at once.
 */
import { randomBytes } from "node:crypto";
import pgDriver from "pg";
import { startTcpProxy, testDatabases } from "@crux/testkit";
import { describe, expect, it } from "vitest";
import { createDatabase, waitForDatabase } from "../src/index.ts";

const pg = testDatabases().find((d) => d.name === "postgres");

describe.runIf(pg)("waitForDatabase on postgres", () => {
  it("waits while the database is unreachable and returns once it answers", async () => {
    const migrated = await pg!.create();
    if (migrated.kind !== "postgres") throw new Error("expected postgres");
    const options = migrated.pool.options as { connectionString: string };
    const target = new URL(options.connectionString);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.down();
    const database = await createDatabase({ url: proxy.urlFor(options.connectionString), poolSize: 2 });
    const failures: number[] = [];
    try {
      const waiting = waitForDatabase(database, {
        initialDelayMs: 20,
        maxDelayMs: 50,
        onUnavailable: (_err, attempt) => {
          failures.push(attempt);
          if (attempt === 3) void proxy.up();
        },
      });
      await expect(waiting).resolves.toBeUndefined();
      expect(failures).toEqual([1, 2, 3]);
    } finally {
      await database.close();
      await proxy.close();
      await migrated.close();
    }
  });

  it("throws at once on a database without the schema", async () => {
    const name = `crux_empty_${randomBytes(5).toString("hex")}`;
    const admin = new pgDriver.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const database = await createDatabase({ url: url.toString(), poolSize: 1 });
    let attempts = 0;
    try {
      await expect(waitForDatabase(database, { onUnavailable: () => attempts++ })).rejects.toThrow(/schema is not initialized/);
      expect(attempts).toBe(0);
    } finally {
      await database.close();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it("stops waiting when aborted", async () => {
    const database = await createDatabase({ url: "postgres://postgres@127.0.0.1:1/none", poolSize: 1 });
    const abort = new AbortController();
    try {
      const waiting = waitForDatabase(database, {
        initialDelayMs: 10,
        signal: abort.signal,
        onUnavailable: (_e, attempt) => attempt === 2 && abort.abort(new Error("shutting down")),
      });
      await expect(waiting).rejects.toThrow("shutting down");
    } finally {
      await database.close();
    }
  });
});
