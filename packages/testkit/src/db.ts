/**
 * Databases for integration tests: always the embedded PGlite, plus real
 * Postgres when a URL is given (DATABASE_URL by default). Each create() returns
 * a fresh, migrated, isolated database:
 * - PGlite: one instance is migrated per test file and dumped; each create()
 *   loads that dump (cheaper than initdb + migrate).
 * - Postgres: a template database crux_tpl_<random> is migrated once per test
 *   file; each create() is CREATE DATABASE crux_t_<random> TEMPLATE it, dropped
 *   again by close(). The template is dropped after the file's tests.
 * Usage: describe.each(testDatabases())("$name", ({ create }) => { ... }).
 */
import { randomBytes } from "node:crypto";
import { createDatabase, migrate, type Database } from "@crux/db";
import pg from "pg";
import { afterAll } from "vitest";

export interface TestDatabaseFactory {
  name: "pglite" | "postgres";
  create(): Promise<Database>;
}

export interface TestDatabasesOptions {
  /** Admin connection URL of a Postgres server; defaults to process.env.DATABASE_URL. Unset = PGlite only. */
  databaseUrl?: string | undefined;
}

let pgliteDump: Promise<Blob> | null = null;

async function migratedPgliteDump(): Promise<Blob> {
  const base = await createDatabase({ dataDir: "memory" });
  try {
    await migrate(base);
    if (base.kind !== "pglite") throw new Error("expected a PGlite database");
    return await base.pglite.dumpDataDir("none");
  } finally {
    await base.close();
  }
}

const pgliteFactory: TestDatabaseFactory = {
  name: "pglite",
  async create() {
    pgliteDump ??= migratedPgliteDump();
    return createDatabase({ dataDir: "memory", loadDataDir: await pgliteDump });
  },
};

function randomDbName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

function urlForDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const templates = new Map<string, Promise<string>>();

async function createTemplate(adminUrl: string): Promise<string> {
  const name = randomDbName("crux_tpl");
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const database = await createDatabase({ url: urlForDatabase(adminUrl, name), poolSize: 1 });
  try {
    await migrate(database);
  } finally {
    // A template must have no open connections when it is copied.
    await database.close();
  }
  return name;
}

function postgresFactory(adminUrl: string): TestDatabaseFactory {
  return {
    name: "postgres",
    async create() {
      let template = templates.get(adminUrl);
      if (!template) {
        template = createTemplate(adminUrl);
        templates.set(adminUrl, template);
      }
      const name = randomDbName("crux_t");
      await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${await template}`);
      const database = await createDatabase({ url: urlForDatabase(adminUrl, name), poolSize: 4 });
      const closePool = database.close;
      let dropped = false;
      database.close = async () => {
        await closePool();
        if (dropped) return;
        dropped = true;
        await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      };
      return database;
    },
  };
}

async function dropTemplates(): Promise<void> {
  const entries = [...templates.entries()];
  templates.clear();
  await Promise.all(
    entries.map(async ([adminUrl, template]) => {
      const name = await template.catch(() => null);
      if (name) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    }),
  );
}

let cleanupRegistered = false;

export function testDatabases(opts: TestDatabasesOptions = {}): TestDatabaseFactory[] {
  const databaseUrl = "databaseUrl" in opts ? opts.databaseUrl : process.env.DATABASE_URL;
  if (!databaseUrl) return [pgliteFactory];
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    try {
      afterAll(dropTemplates);
    } catch {
      // Called outside test collection: templates are left behind (crux_tpl_*), nothing breaks.
    }
  }
  return [pgliteFactory, postgresFactory(databaseUrl)];
}
