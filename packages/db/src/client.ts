/**
 * Client factory: a node-postgres Pool (production) or PGlite (embedded
 * default), both behind the same drizzle PgDatabase so every query in this
 * package runs unchanged on either.
 */
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import pg from "pg";
import { isStorageUnavailable } from "./errors.ts";
import { lockDataDir, type DataDirLock } from "./data-dir-lock.ts";
import * as schema from "./schema/index.ts";

export { DataDirLockedError, dataDirLockFileName } from "./data-dir-lock.ts";

type Schema = typeof schema;
/** The drizzle instance, typed as what the pg and PGlite drivers have in common. */
export type CruxDb = PgDatabase<PgQueryResultHKT, Schema>;

interface DatabaseBase {
  db: CruxDb;
  /** Ends the pool / closes PGlite. Safe to call twice. */
  close(): Promise<void>;
  /** Throws if the database does not answer `select 1`. */
  ping(): Promise<void>;
}
export interface PostgresDatabase extends DatabaseBase {
  kind: "postgres";
  pool: pg.Pool;
  /** Hot statements are prepared once per connection by name; off behind a pooler that cannot keep them. */
  namedStatements: boolean;
}
export interface PgliteDatabase extends DatabaseBase {
  kind: "pglite";
  pglite: PGlite;
}
export type Database = PostgresDatabase | PgliteDatabase;

export type CreateDatabaseOptions =
  | {
      url: string;
      poolSize?: number;
      /** How long a new connection may take before the query fails as unavailable (default 5 s). */
      connectTimeoutMs?: number;
      /**
       * How long one statement may run, waiting for locks included, before Postgres cancels it
       * (SQLSTATE 57014, isStatementTimedOut); unset or 0: no limit. The embedded PGlite has none.
       */
      statementTimeoutMs?: number;
      /**
       * Prepare hot statements by name (default true). Turn off behind PgBouncer in transaction mode
       * older than 1.21, or with max_prepared_statements = 0, where a named statement prepared on one
       * server connection is missing on the next.
       */
      namedStatements?: boolean;
      /** Told about connections that fail outside a query (logged by the service); never fatal. */
      onConnectionError?: (err: Error) => void;
    }
  | {
      /**
       * A folder (created if missing) or "memory" for an in-memory database. A folder is locked
       * for this process until close(): opening one in use elsewhere throws DataDirLockedError.
       */
      dataDir: string;
      /** Start from a dump made by PGlite's dumpDataDir() (tests clone a migrated instance this way). */
      loadDataDir?: Blob;
    };

export const defaultPoolSize = 10;
const defaultConnectTimeoutMs = 5_000;

export async function createDatabase(opts: CreateDatabaseOptions): Promise<Database> {
  if ("url" in opts) {
    // A bounded connect: a server that accepts and never answers (packets dropped) fails the
    // query as unavailable (503 / job retry) instead of holding it until the request times out.
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? defaultPoolSize,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? defaultConnectTimeoutMs,
      // Sent as a start-up parameter, so it holds for every statement on every connection of the pool.
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    });
    // A connection that errors (server restart, pg_terminate_backend) must not crash the process.
    // The pool listens only while a client is idle and removes its listener at checkout, so a
    // checked-out client between two queries (inside a transaction) would emit an unhandled
    // 'error'. Every client gets its own listener; the failed query rejects on its own and the
    // client is discarded when released with that error, so the next query reconnects.
    pool.on("error", (err) => opts.onConnectionError?.(err));
    pool.on("connect", (client) => client.on("error", (err) => opts.onConnectionError?.(err)));
    const db = drizzlePg({ client: pool, schema, casing: "snake_case" }) as unknown as CruxDb;
    db.transaction = releasingTransaction(pool);
    let closed = false;
    return {
      kind: "postgres",
      pool,
      namedStatements: opts.namedStatements ?? true,
      db,
      ping: () => pingDb(db),
      async close() {
        if (closed) return;
        closed = true;
        await pool.end();
      },
    };
  }
  const inMemory = opts.dataDir === "memory";
  let lock: DataDirLock | undefined;
  if (!inMemory) {
    mkdirSync(opts.dataDir, { recursive: true });
    // Before PGlite touches the folder: a second instance would initdb or write over the first.
    lock = lockDataDir(opts.dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(inMemory ? {} : { dataDir: opts.dataDir }),
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const db = drizzlePglite({ client: pglite, schema, casing: "snake_case" }) as unknown as CruxDb;
  return {
    kind: "pglite",
    pglite,
    db,
    ping: () => pingDb(db),
    async close() {
      try {
        if (!pglite.closed) await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/**
 * db.transaction on the pool, with the checked-out client always released.
 * drizzle's own pool transaction sends BEGIN before entering its try/finally,
 * so a connection dropped between checkout and BEGIN was never released: each
 * such drop leaked a pool slot until every query waited forever (and
 * pool.end() hung at shutdown). Here drizzle runs the transaction on the
 * client we checked out; a client whose connection failed is discarded.
 */
function releasingTransaction(pool: pg.Pool): CruxDb["transaction"] {
  // One drizzle per pooled connection: building one maps the whole schema (1% of the worker's CPU per transaction).
  const onClients = new WeakMap<pg.PoolClient, CruxDb>();
  return async (run, config) => {
    const client = oneQueryAtATime(await pool.connect());
    let failure: unknown;
    try {
      let onClient = onClients.get(client);
      if (!onClient) {
        onClient = drizzlePg({ client, schema, casing: "snake_case" }) as unknown as CruxDb;
        onClients.set(client, onClient);
      }
      return await onClient.transaction((tx) => {
        transactionClients.set(tx, client);
        return run(tx);
      }, config);
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      client.release(failure !== undefined && isStorageUnavailable(failure) ? (failure as Error) : undefined);
    }
  };
}

const queuedClients = new WeakSet<pg.PoolClient>();

/**
 * Makes a pooled connection take its queries one at a time, each sent once the one before
 * settled. A transaction runs on one connection, and readers inside a snapshot send several
 * queries at once (Promise.all over the metrics' reads): node-postgres queued them itself,
 * but deprecates that ("Calling client.query() when the client is already executing a query
 * is deprecated"; an error in pg 9). Queued here instead: the same statements in the same
 * order, as fast (one connection runs one query at a time either way). Crux uses only the
 * promise form; a callback or a submittable (cursor) goes straight through.
 */
function oneQueryAtATime(client: pg.PoolClient): pg.PoolClient {
  if (queuedClients.has(client)) return client;
  queuedClients.add(client);
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  let previous: Promise<unknown> = Promise.resolve();
  const queued = (...args: unknown[]): unknown => {
    const first = args[0] as { submit?: unknown } | undefined;
    if (typeof args.at(-1) === "function" || typeof first?.submit === "function") return send(...args);
    const result = previous.then(() => send(...args));
    previous = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  };
  client.query = queued as typeof client.query;
  return client;
}

/** The connection a Postgres transaction runs on (releasingTransaction), for fixed statements. */
const transactionClients = new WeakMap<object, pg.PoolClient>();

/** A statement whose text never changes, with its parameters ($1, $2, ...). */
export interface FixedStatement {
  text: string;
  values: unknown[];
}

/** What a PGlite drizzle instance (or its transaction) runs its queries on. */
interface PgliteSessionHolder {
  _: { session: { client: Pick<PGlite, "query"> } };
}

/**
 * Runs a fixed statement and returns its rows as arrays, in select order, typed as the driver
 * parses them (int8 differs: a string on Postgres, a number or bigint on PGlite). No SQL is
 * built per run: on Postgres it runs unnamed with its values (planned with them, never a
 * generic plan), on the pool or, inside a transaction (inReadSnapshot), on its connection; on
 * PGlite on the instance or its transaction.
 */
export async function queryRows(database: Database, statement: FixedStatement): Promise<unknown[][]> {
  if (database.kind === "postgres") {
    const client = transactionClients.get(database.db) ?? database.pool;
    return (await client.query<unknown[]>({ text: statement.text, values: statement.values, rowMode: "array" })).rows;
  }
  const client = (database.db as unknown as PgliteSessionHolder)._.session.client;
  return (await client.query<unknown[]>(statement.text, statement.values, { rowMode: "array" })).rows;
}

async function pingDb(db: CruxDb): Promise<void> {
  await db.execute(sql`select 1`);
}

/** Rows of a raw `db.execute()` result; both drivers return `{ rows }`. */
export function rowsOf(result: unknown): Record<string, unknown>[] {
  return (result as { rows: Record<string, unknown>[] }).rows;
}

/**
 * Runs `read` on one read-only, repeatable-read snapshot. A metric made of
 * several queries (run at once over the pool, each on its own connection)
 * would otherwise mix states: a trace committed between two of them is in one
 * count and not the other (a rate of 3/4 for four failing traces).
 */
export async function inReadSnapshot<T>(database: Database, read: (snapshot: Database) => Promise<T>): Promise<T> {
  return database.db.transaction((tx) => read({ ...database, db: tx } as Database), { isolationLevel: "repeatable read", accessMode: "read only" });
}
