/**
 * A transaction is one connection, and node-postgres deprecates sending a query while
 * the connection still runs one ("Calling client.query() when the client is already
 * executing a query is deprecated", a process warning the production worker printed
 * when alerts.evaluate read the failure-mode and success metrics). The metrics read
 * several queries at once (Promise.all) inside one snapshot: they must reach the
 * connection one at a time, and still answer the same.
 */
import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { inReadSnapshot, rowsOf } from "../src/client.ts";
import { failureModeMetrics, successInputs } from "../src/index.ts";

const postgres = testDatabases().filter((d) => d.name === "postgres");
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.message);

describe.skipIf(postgres.length === 0).each(postgres)("queries inside one transaction on $name", ({ create }) => {
  afterEach(() => {
    process.off("warning", onWarning);
  });

  it("reach the connection one at a time: no node-postgres warning, the same answers", async () => {
    process.on("warning", onWarning);
    const database = await create();
    try {
      const filter = { fromNs: 0n, toNs: 10n ** 18n };
      await failureModeMetrics(database, "p-none", filter, { groupBy: "mode" });
      await successInputs(database, "p-none", filter);
      // Sent at once inside a snapshot, answered each by its own statement.
      const answers = await inReadSnapshot(database, (snapshot) =>
        Promise.all([1, 2, 3].map((n) => snapshot.db.execute(sql`SELECT ${n}::int AS n, pg_sleep(0.01)::text AS slept`).then((r) => rowsOf(r)[0]!.n))),
      );
      expect(answers).toEqual([1, 2, 3]);
      await new Promise((r) => setImmediate(r)); // process warnings are emitted on the next tick
      expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
