/**
 * `pnpm crux <command>`: one-shot operations.
 *   migrate                                   apply pending migrations (production's migrate step)
 *   keys create --project <id> [--name <n>]   create a project if missing and an API key for it (printed once)
 *   renormalize [--project <id>]              re-read stored spans with the current normalizer and request their re-scoring
 *   rescore --project <id> [--from <t>] [--to <t>]   re-score the project's traces that started in [from, to)
 *                                             (ISO times), e.g. after a price change (docs/metrics.md §3)
 * Uses DATABASE_URL, or the embedded database in CRUX_DATA_DIR (default ./.crux).
 */
import { parseArgs } from "node:util";
import { loadConfig } from "@crux/config";
import {
  createApiKey,
  createDatabase,
  DataDirLockedError,
  describeStorageError,
  ensureProject,
  isStorageUnavailable,
  migrate,
  renormalizeStoredSpans,
  requestRescore,
} from "@crux/db";
import { z } from "zod";

const config = loadConfig(z.object({ DATABASE_URL: z.string().url().optional(), CRUX_DATA_DIR: z.string().default("./.crux") }), process.env);
const { positionals, values } = parseArgs({
  allowPositionals: true,
  // No default project: renormalize without --project covers every project.
  options: {
    project: { type: "string" },
    name: { type: "string", default: "default" },
    from: { type: "string" },
    to: { type: "string" },
  },
});
const command = positionals.join(" ");
const usage =
  "usage: pnpm crux migrate | pnpm crux keys create --project <id> [--name <name>] | pnpm crux renormalize [--project <id>] | pnpm crux rescore --project <id> [--from <ISO time>] [--to <ISO time>]";

if (command !== "migrate" && command !== "keys create" && command !== "renormalize" && command !== "rescore") {
  console.error(usage);
  process.exit(2);
}
/** An ISO time option, or exit 2 naming it. */
function timeOption(name: "from" | "to"): Date | undefined {
  const text = values[name];
  if (text === undefined) return undefined;
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) {
    console.error(`crux: --${name} ${JSON.stringify(text)} is not a time; give an ISO time such as 2026-11-30T00:00:00Z`);
    process.exit(2);
  }
  return time;
}
const range = { from: timeOption("from"), to: timeOption("to") };
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

const database = await (config.DATABASE_URL ? createDatabase({ url: config.DATABASE_URL }) : createDatabase({ dataDir: config.CRUX_DATA_DIR })).catch(fail);
try {
  await migrate(database);
  if (command === "migrate") {
    console.log(`migrations applied (${database.kind})`);
  } else if (command === "renormalize") {
    const r = await renormalizeStoredSpans(database, values.project === undefined ? {} : { projectId: values.project });
    console.log(
      `re-read ${r.spans} spans of ${r.traces} traces${values.project === undefined ? "" : ` in project '${values.project}'`}: ` +
        `${r.spansChanged} spans in ${r.tracesChanged} traces changed; all ${r.traces} traces are requested for scoring (the worker re-scores them)`,
    );
  } else if (command === "rescore") {
    const project = values.project ?? "default";
    const requested = await requestRescore(database, project, range);
    console.log(`re-score requested for ${requested} trace(s) of project '${project}'; the worker's sweeper scores them`);
  } else {
    const project = values.project ?? "default";
    await ensureProject(database, project, project);
    const { key } = await createApiKey(database, project, values.name!);
    console.log(`API key for project '${project}' (shown once, store it now):\n${key}`);
  }
} catch (err) {
  await database.close();
  fail(err);
} finally {
  await database.close();
}
