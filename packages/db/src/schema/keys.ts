/**
 * Projects and their API keys (config/api-keys.ts). TS names are camelCase; the client and
 * drizzle.config.ts both use `casing: "snake_case"`, so SQL tables and columns are snake_case.
 * After editing any file of this folder, regenerate the SQL in migrations/ (see README.md).
 */
import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const projects = pgTable("projects", {
  id: text().primaryKey(),
  name: text().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text().primaryKey(),
    projectId: text()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** sha256 hex of the full key; the key itself is never stored. */
    keyHash: text().notNull(),
    /** First 8 characters of the key, to tell keys apart in a UI. */
    keyPrefix: text().notNull(),
    /** What the key may do (apiKeyScopes): ingest (send traces), read (the API's reads) or full; keys made before scopes existed are full. */
    scope: text().notNull().default("full"),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Last successful authentication, written at most once a minute per key and process. */
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex().on(t.keyHash), index().on(t.projectId), check("api_keys_scope", sql`${t.scope} IN ('ingest', 'read', 'full')`)],
);
