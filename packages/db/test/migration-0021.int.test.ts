/**
 * Migration 0021 gives API keys a scope and a last-used time: keys made before it keep full
 * access (a deployment's tracers and dashboards go on working), with no last use recorded.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { testDatabases } from "@crux/testkit";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "../src/client.ts";
import { ensureProject, findActiveApiKey, type Database } from "../src/index.ts";
import { projectId } from "./fixtures.ts";

const statements = readFileSync(fileURLToPath(new URL("../../../migrations/0021_key_scopes_label_history_secret_overlap.sql", import.meta.url)), "utf8").split(
  "--> statement-breakpoint",
);

describe.each(testDatabases())("migration 0021 on $name", ({ create }) => {
  it("gives keys made before it full scope", async () => {
    const database: Database = await create();
    try {
      // Back to the table as 0020 left it, with a key of that time; then 0021 again.
      await database.db.execute(sql`ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope`);
      await database.db.execute(sql`ALTER TABLE api_keys DROP COLUMN scope, DROP COLUMN last_used_at`);
      await database.db.execute(sql`DROP TABLE trace_label_history`);
      await database.db.execute(sql`ALTER TABLE webhooks DROP COLUMN previous_secret, DROP COLUMN previous_secret_until`);
      const p = projectId();
      await ensureProject(database, p, "old");
      await database.db.execute(
        sql`INSERT INTO api_keys (id, project_id, name, key_hash, key_prefix) VALUES ('old-key', ${p}, 'ci', encode(sha256('crux_old'::bytea), 'hex'), 'crux_old')`,
      );
      for (const statement of statements) await database.db.execute(sql.raw(statement));

      expect(await findActiveApiKey(database, "crux_old")).toEqual({ id: "old-key", projectId: p, scope: "full" });
      const [row] = rowsOf(await database.db.execute(sql`SELECT scope, last_used_at FROM api_keys WHERE id = 'old-key'`));
      expect(row).toEqual({ scope: "full", last_used_at: null });
    } finally {
      await database.close();
    }
  });
});
