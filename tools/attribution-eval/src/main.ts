/**
 * `pnpm eval:attribution <dir|file.jsonl>... [options]`: measures decisive-error
 * attribution on labelled multi-agent logs (README.md beside this folder).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { evaluate, type LabelledSet } from "./evaluate.ts";
import { LogFormatError, parseLogs, rosterSubset } from "./logs.ts";
import { formatLogs, formatReport } from "./report.ts";
import { CruxClient, startCrux, type StartedCrux } from "./service.ts";

const USAGE = `usage: pnpm eval:attribution <dir|file.jsonl>... [--subset-by roster] [--limit N] [--per-log] [--timeout-s S]
       [--otlp-url URL --api-url URL [--api-key KEY]]
       [--judge --base-url URL --model M --budget-usd N [--judge-api-key KEY]]`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "subset-by": { type: "string" },
      limit: { type: "string" },
      "otlp-url": { type: "string" },
      "api-url": { type: "string" },
      "api-key": { type: "string" },
      judge: { type: "boolean", default: false },
      "base-url": { type: "string" },
      model: { type: "string" },
      "budget-usd": { type: "string" },
      "judge-api-key": { type: "string" },
      "timeout-s": { type: "string" },
      "per-log": { type: "boolean", default: false },
    },
  });
  if (positionals.length === 0) return fail(USAGE);
  if (values["subset-by"] !== undefined && values["subset-by"] !== "roster") return fail(`--subset-by: only "roster" is known\n${USAGE}`);
  const limit = values.limit === undefined ? Infinity : Number(values.limit);
  if (!(limit > 0)) return fail("--limit: a positive number of logs per set");
  let judge;
  if (values.judge) {
    const budget = Number(values["budget-usd"]);
    if (values["base-url"] === undefined || values.model === undefined || !(budget >= 0) || values["budget-usd"] === undefined) {
      return fail(`--judge needs --base-url, --model and --budget-usd (dollars the judges may spend)\n${USAGE}`);
    }
    judge = { baseUrl: values["base-url"], model: values.model, apiKey: values["judge-api-key"] ?? null, budgetUsd: budget };
  }
  const sets: LabelledSet[] = [];
  for (const path of positionals) {
    for (const file of await jsonlFiles(path)) {
      let logs = parseLogs(await readFile(file, "utf8"), file).slice(0, limit);
      // Logs that name their subset keep it; the others are grouped by their team's roster.
      if (values["subset-by"] === "roster") logs = logs.map((l) => (l.subset === "all" ? { ...l, subset: rosterSubset(l) } : l));
      sets.push({ name: basename(file, ".jsonl"), logs });
    }
  }
  if (sets.length === 0) return fail(`no .jsonl file under ${positionals.join(", ")}`);
  let started: StartedCrux | null = null;
  const external = values["otlp-url"] !== undefined && values["api-url"] !== undefined;
  try {
    if (!external) process.stderr.write("starting Crux (embedded, fresh data folder)…\n");
    const endpoints = external
      ? { otlpUrl: values["otlp-url"] as string, apiUrl: values["api-url"] as string, apiKey: values["api-key"] ?? null }
      : (started = await startCrux());
    const result = await evaluate(sets, {
      client: new CruxClient(endpoints),
      judge,
      nowNs: BigInt(Date.now()) * 1_000_000n,
      timeoutMs: values["timeout-s"] === undefined ? undefined : Number(values["timeout-s"]) * 1000,
      progress: (line) => process.stderr.write(`${line}\n`),
    });
    if (values["per-log"]) console.log(`${formatLogs(result)}\n`);
    console.log(formatReport(result));
  } finally {
    await started?.stop();
  }
  return 0;
}

async function jsonlFiles(path: string): Promise<string[]> {
  if ((await stat(path)).isFile()) return [path];
  return (await readdir(path))
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(path, f));
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof LogFormatError ? err.message : err);
    process.exit(1);
  },
);
