/** A throwaway Postgres database for one benchmark run, created on DATABASE_URL's server and dropped after. */
import { randomUUID } from "node:crypto";
import pg from "pg";

const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function withBenchDatabase<T>(fn: (url: string) => Promise<T>, opts: { keep?: boolean } = {}): Promise<T> {
  const name = `crux_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    if (opts.keep) console.log(`kept database ${name}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
