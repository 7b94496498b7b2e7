import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { testDatabases } from "@crux/testkit";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  assertSchemaCurrent,
  createDatabase,
  defaultMigrationsFolder,
  ensureProject,
  getTrace,
  insertSpanBatch,
  migrate,
  type Database,
} from "../src/index.ts";
import { span, spanId, traceId } from "./fixtures.ts";

const adminUrl = process.env.DATABASE_URL;

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** An empty, unmigrated database per backend (testkit only hands out migrated ones). */
const emptyDatabases: { name: string; create(): Promise<Database> }[] = [{ name: "pglite", create: () => createDatabase({ dataDir: "memory" }) }];
if (adminUrl) {
  emptyDatabases.push({
    name: "postgres",
    async create() {
      const name = `crux_t_${randomBytes(6).toString("hex")}`;
      await admin(`CREATE DATABASE ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const database = await createDatabase({ url: url.toString(), poolSize: 3 });
      const closePool = database.close;
      database.close = async () => {
        await closePool();
        await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      };
      return database;
    },
  });
}

/** A copy of migrations/ with one more migration, as a newer build would ship. */
function folderWithExtraMigration(): string {
  const folder = mkdtempSync(join(tmpdir(), "crux-migrations-"));
  cpSync(defaultMigrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number; when: number; tag: string }[] };
  const last = journal.entries[journal.entries.length - 1]!;
  const tag = `${String(last.idx + 1).padStart(4, "0")}_test_extra`;
  journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1_000, tag });
  writeFileSync(journalPath, JSON.stringify(journal));
  writeFileSync(join(folder, `${tag}.sql`), "CREATE TABLE test_extra (id integer);");
  return folder;
}

describe.each(emptyDatabases)("migrate on $name", ({ create }) => {
  const folders: string[] = [];
  afterAll(() => {
    for (const f of folders) rmSync(f, { recursive: true, force: true });
  });

  it("refuses an unmigrated database, migrates idempotently, then detects a pending migration", async () => {
    const database = await create();
    try {
      await expect(assertSchemaCurrent(database)).rejects.toThrow(/not initialized.*migrate/);
      await migrate(database);
      await migrate(database);
      await expect(assertSchemaCurrent(database)).resolves.toBeUndefined();

      const newer = folderWithExtraMigration();
      folders.push(newer);
      await expect(assertSchemaCurrent(database, { migrationsFolder: newer })).rejects.toThrow(/1 migration\(s\) pending/);
      await migrate(database, { migrationsFolder: newer });
      await expect(assertSchemaCurrent(database, { migrationsFolder: newer })).resolves.toBeUndefined();
    } finally {
      await database.close();
    }
  });
});

describe.each(testDatabases())("testkit database on $name", ({ create }) => {
  it("is migrated and isolated from the next one", async () => {
    const a = await create();
    const b = await create();
    try {
      await assertSchemaCurrent(a);
      await ensureProject(a, "p", "p");
      await insertSpanBatch(a, "p", [span({ traceId: traceId(1), spanId: spanId(1) })]);
      await ensureProject(b, "p", "p");
      expect(await getTrace(a, "p", traceId(1))).not.toBeNull();
      expect(await getTrace(b, "p", traceId(1))).toBeNull();
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("embedded PGlite in a data folder", () => {
  it("creates the folder and keeps data across restarts", async () => {
    const parent = mkdtempSync(join(tmpdir(), "crux-pglite-"));
    const dataDir = join(parent, "nested", "data");
    try {
      const first = await createDatabase({ dataDir });
      await migrate(first);
      await ensureProject(first, "p", "p");
      await insertSpanBatch(first, "p", [span({ traceId: traceId(1), spanId: spanId(1), name: "persisted" })]);
      await first.close();

      const second = await createDatabase({ dataDir });
      try {
        await assertSchemaCurrent(second);
        await second.ping();
        expect((await getTrace(second, "p", traceId(1)))!.spans[0]!.name).toBe("persisted");
      } finally {
        await second.close();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
