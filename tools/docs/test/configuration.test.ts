/**
 * docs/configuration.md lists every environment variable a Crux process
 * reads: each key of the config schemas (services' src/config.ts, the shared
 * ones in packages/config, the admin CLI's) appears in it, with a default.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRepoFile, repoRoot } from "./markdown.ts";

/** Where the config schemas are declared: only entry points read the environment, through these. */
function schemaFiles(): string[] {
  const services = readdirSync(join(repoRoot, "services")).flatMap((s) =>
    ["config.ts", "main.ts"]
      .map((f) => `services/${s}/src/${f}`)
      .filter((p) => {
        try {
          return readRepoFile(p).includes("z.object(") || readRepoFile(p).includes(".extend(");
        } catch {
          return false;
        }
      }),
  );
  const shared = readdirSync(join(repoRoot, "packages/config/src"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => `packages/config/src/${f}`);
  return [...services, ...shared];
}

/** Keys of zod objects that are environment variables (upper case), e.g. `CRUX_API_PORT: envPort(8080)`. */
function variablesOf(source: string): string[] {
  return [...source.matchAll(/(?:^\s*|[{,]\s*)([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*:/gm)].map((m) => m[1]!);
}

describe("docs/configuration.md", () => {
  const doc = readRepoFile("docs/configuration.md");
  const variables = [...new Set(schemaFiles().flatMap((f) => variablesOf(readRepoFile(f))))].sort();

  it("reads the variables of every schema", () => {
    expect(variables).toEqual(
      expect.arrayContaining([
        "DATABASE_URL",
        "CRUX_DATA_DIR",
        "CRUX_OTLP_HTTP_PORT",
        "CRUX_WORKER_CONCURRENCY",
        "CRUX_JUDGE_PROVIDER",
        "CRUX_VALIDATION_KAPPA_BAR",
      ]),
    );
    expect(variablesOf("z.object({ DATABASE_URL: z.string(), CRUX_X_MS: envInt(1) })")).toEqual(["DATABASE_URL", "CRUX_X_MS"]);
  });

  it("has a table row for every variable a process reads", () => {
    const rows = doc.split("\n").filter((l) => l.startsWith("| `"));
    const undocumented = variables.filter((v) => !rows.some((r) => r.split("|")[1]!.includes(`\`${v}\``)));
    expect(undocumented).toEqual([]);
  });
});
