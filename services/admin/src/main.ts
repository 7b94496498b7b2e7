/**
 * `pnpm crux <command>`: one-shot operations (usage below). Uses DATABASE_URL,
 * or the embedded database in CRUX_DATA_DIR (default ./.crux).
 */
import { parseArgs } from "node:util";
import { loadConfig } from "@crux/config";
import {
  apiKeyScopes,
  createApiKey,
  createDatabase,
  DataDirLockedError,
  describeStorageError,
  ensureProject,
  isApiKeyScope,
  isStorageUnavailable,
  listApiKeys,
  migrate,
  renormalizeStoredSpans,
  requestRescore,
  revokeApiKey,
  rotateApiKey,
  type ApiKeyListing,
  type Database,
} from "@crux/db";
import { normalizeSpan } from "@crux/otlp";
import { z } from "zod";

const usage = `usage: pnpm crux <command>

  migrate                                       apply pending migrations (production's migrate step)
  keys create --project <id> [--name <name>] [--scope ingest|read|full]
                                                create the project if missing and an API key for it (printed once)
  keys list [--project <id>]                    every key (revoked ones too): id, project, name, scope, prefix, created, last used
  keys revoke <key id>                          revoke a key (services stop accepting it within 30 s)
  keys rotate <key id>                          a new key with the same project, name and scope; the old one is revoked
  renormalize [--project <id>]                  re-read stored spans with the current normalizer and request their re-scoring
                                                (after an upgrade; every project when --project is omitted)
  rescore [--project <id>] [--from <ISO time>] [--to <ISO time>]
                                                re-score the project's traces that started in [from, to), e.g. after a
                                                price change (docs/metrics.md §3)

Scopes: ingest sends traces only (give it to tracers), read reads the API only, full (the default) does both and
changes configuration. Keys made before scopes existed are full.
Uses DATABASE_URL, or the embedded database in CRUX_DATA_DIR (default ./.crux).`;

type Command =
  | { name: "help" }
  | { name: "migrate" }
  | { name: "keys create"; project: string; keyName: string; scope: (typeof apiKeyScopes)[number] }
  | { name: "keys list"; project?: string }
  | { name: "keys revoke" | "keys rotate"; keyId: string }
  | { name: "renormalize"; project?: string }
  | { name: "rescore"; project: string; from?: Date; to?: Date };

/** An ISO time option, or a message naming it. */
function timeOption(name: "from" | "to", text: string | undefined): Date | undefined | { error: string } {
  if (text === undefined) return undefined;
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? { error: `--${name} ${JSON.stringify(text)} is not a time; give an ISO time such as 2026-11-30T00:00:00Z` } : time;
}

/** The command line as a command, or a message saying what is wrong with it. */
function parseCommand(argv: string[]): Command | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        project: { type: "string" },
        name: { type: "string" },
        scope: { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
  const { positionals, values } = parsed;
  if (values.help || positionals[0] === "help") return { name: "help" };
  const [group, verb, ...rest] = positionals;
  if (group === "migrate" && verb === undefined) return { name: "migrate" };
  if (group === "renormalize" && verb === undefined) return { name: "renormalize", ...(values.project === undefined ? {} : { project: values.project }) };
  if (group === "rescore" && verb === undefined) {
    const from = timeOption("from", values.from);
    const to = timeOption("to", values.to);
    for (const t of [from, to]) if (t !== undefined && !(t instanceof Date)) return t;
    return { name: "rescore", project: values.project ?? "default", ...(from instanceof Date ? { from } : {}), ...(to instanceof Date ? { to } : {}) };
  }
  if (group !== "keys") return { error: group === undefined ? "no command given" : `unknown command '${positionals.join(" ")}'` };
  if (verb === "create" && rest.length === 0) {
    const scope = values.scope ?? "full";
    if (!isApiKeyScope(scope)) return { error: `unknown scope '${scope}': use one of ${apiKeyScopes.join(", ")}` };
    return { name: "keys create", project: values.project ?? "default", keyName: values.name ?? "default", scope };
  }
  if (verb === "list" && rest.length === 0) return { name: "keys list", ...(values.project === undefined ? {} : { project: values.project }) };
  if ((verb === "revoke" || verb === "rotate") && rest.length === 1) return { name: `keys ${verb}`, keyId: rest[0]! };
  if (verb === "revoke" || verb === "rotate") return { error: `keys ${verb} takes one key id (see \`pnpm crux keys list\`)` };
  return { error: `unknown command '${positionals.join(" ")}'` };
}

/** One plain line and exit 1 for the failures a user can fix; anything else keeps its stack. */
function fail(err: unknown): never {
  if (err instanceof DataDirLockedError) {
    console.error(`crux: ${err.message}: stop it first (the embedded database allows one process), or set CRUX_DATA_DIR`);
  } else if (isStorageUnavailable(err)) {
    console.error(`crux: the database is unreachable (${describeStorageError(err).message}); check DATABASE_URL and that Postgres runs`);
  } else {
    throw err;
  }
  process.exit(1);
}

function keyTable(keys: ApiKeyListing[]): string {
  const at = (d: Date | null) => (d ? d.toISOString().replace(/\.\d{3}Z$/, "Z") : "never");
  const rows = [
    ["id", "project", "name", "scope", "prefix", "created", "last used", "revoked"],
    ...keys.map((k) => [k.id, k.projectId, k.name, k.scope, k.keyPrefix, at(k.createdAt), at(k.lastUsedAt), k.revokedAt ? at(k.revokedAt) : "-"]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Runs one command on a migrated database; returns the process exit code. */
async function run(database: Database, command: Exclude<Command, { name: "help" }>): Promise<number> {
  switch (command.name) {
    case "migrate":
      console.log(`migrations applied (${database.kind})`);
      return 0;
    case "keys create": {
      await ensureProject(database, command.project, command.project);
      const { key } = await createApiKey(database, command.project, command.keyName, command.scope);
      console.log(`API key '${command.keyName}' for project '${command.project}', scope ${command.scope} (shown once, store it now):\n${key}`);
      return 0;
    }
    case "keys list": {
      const keys = await listApiKeys(database, command.project);
      console.log(keys.length === 0 ? "no API keys" : keyTable(keys));
      return 0;
    }
    case "keys revoke":
      if (await revokeApiKey(database, command.keyId)) {
        console.log(`API key ${command.keyId} revoked (services stop accepting it within 30 s)`);
        return 0;
      }
      console.error(`crux: no active API key with id ${command.keyId} (see \`pnpm crux keys list\`)`);
      return 1;
    case "renormalize": {
      const r = await renormalizeStoredSpans(database, { normalize: normalizeSpan, ...(command.project === undefined ? {} : { projectId: command.project }) });
      console.log(
        `re-read ${r.spans} spans of ${r.traces} traces${command.project === undefined ? "" : ` in project '${command.project}'`}: ` +
          `${r.spansChanged} spans in ${r.tracesChanged} traces changed; all ${r.traces} traces are requested for scoring (the worker re-scores them)`,
      );
      return 0;
    }
    case "rescore": {
      const requested = await requestRescore(database, command.project, {
        ...(command.from ? { from: command.from } : {}),
        ...(command.to ? { to: command.to } : {}),
      });
      console.log(`re-score requested for ${requested} trace(s) of project '${command.project}'; the worker's sweeper scores them`);
      return 0;
    }
    case "keys rotate": {
      const rotated = await rotateApiKey(database, command.keyId);
      if (!rotated) {
        console.error(`crux: no active API key with id ${command.keyId} (see \`pnpm crux keys list\`)`);
        return 1;
      }
      console.log(
        `API key ${command.keyId} revoked; its replacement ${rotated.id} for project '${rotated.projectId}', scope ${rotated.scope} (shown once, store it now):\n${rotated.key}`,
      );
      return 0;
    }
  }
}

const command = parseCommand(process.argv.slice(2));
if ("error" in command) {
  console.error(`crux: ${command.error}\n\n${usage}`);
  process.exit(2);
}
if (command.name === "help") {
  console.log(usage);
  process.exit(0);
}
const config = loadConfig(z.object({ DATABASE_URL: z.string().url().optional(), CRUX_DATA_DIR: z.string().default("./.crux") }), process.env);
const database = await (config.DATABASE_URL ? createDatabase({ url: config.DATABASE_URL }) : createDatabase({ dataDir: config.CRUX_DATA_DIR })).catch(fail);
let code = 1;
try {
  await migrate(database);
  code = await run(database, command);
} catch (err) {
  await database.close();
  fail(err);
} finally {
  await database.close();
}
process.exit(code);
