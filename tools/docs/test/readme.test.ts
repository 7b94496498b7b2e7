/**
 * The README's commands as written: the quick start is the two pinned pnpm
 * commands, every `npx --yes pnpm@<version> <command>` in the docs names the
 * pinned version and a script that exists, no shell block runs a bare pnpm,
 * and the snippets import only packages the README tells the reader to install
 * (and that this package installs, so the integration test runs them as they are).
 */
import { describe, expect, it } from "vitest";
import { codeBlocks, documentationFiles, readRepoFile } from "./markdown.ts";
import { disagreements, importedPackages, readme, tourCalls, tracerSnippets } from "./readme.ts";

const rootPackage = JSON.parse(readRepoFile("package.json")) as { packageManager: string; scripts: Record<string, string> };
const pnpmVersion = rootPackage.packageManager.replace(/^pnpm@/, "");
const docsPackage = JSON.parse(readRepoFile("tools/docs/package.json")) as { devDependencies: Record<string, string> };

/** Commands of pnpm itself the docs may use besides the package.json scripts. */
const PNPM_COMMANDS = new Set(["install", "exec"]);

describe("README commands", () => {
  it("quick start: install then start, install then test, through the pinned pnpm", () => {
    const quickStart = codeBlocks(readme).find((b) => b.text.includes("start"))!;
    const commands = quickStart.text
      .split("\n")
      .map((l) => l.replace(/\s+#.*$/, "").trim())
      .filter(Boolean);
    expect(commands).toEqual([
      `npx --yes pnpm@${pnpmVersion} install && npx --yes pnpm@${pnpmVersion} start`,
      `npx --yes pnpm@${pnpmVersion} install && npx --yes pnpm@${pnpmVersion} test`,
    ]);
    expect(rootPackage.scripts.start).toBe("node --import tsx services/all-in-one/src/main.ts");
  });

  it.each(documentationFiles())("%s: pnpm commands run through the pinned pnpm and name scripts that exist", (file) => {
    const problems: string[] = [];
    for (const block of codeBlocks(readRepoFile(file)).filter((b) => b.lang === "sh")) {
      for (const line of block.text.split("\n")) {
        if (/^\s*pnpm\s/.test(line)) problems.push(`bare pnpm: ${line}`);
        for (const m of line.matchAll(/npx --yes pnpm@(\S+) ([\w:-]+)/g)) {
          if (m[1] !== pnpmVersion) problems.push(`pnpm@${m[1]} is not the pinned ${pnpmVersion}: ${line}`);
          if (!PNPM_COMMANDS.has(m[2]!) && !(m[2]! in rootPackage.scripts)) problems.push(`no script "${m[2]}": ${line}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("the snippets import only what the README installs, and this package installs it too", () => {
    const snippets = tracerSnippets();
    const imported = [...new Set([...importedPackages(snippets["tracing.ts"]), ...importedPackages(snippets["agents.ts"])])];
    expect(imported.length).toBeGreaterThan(2);
    const install = codeBlocks(readme)
      .find((b) => b.text.startsWith("npm i "))!
      .text.split("\n")[0]!
      .trim()
      .split(/\s+/)
      .slice(2);
    expect(install.sort()).toEqual([...imported].sort());
    for (const p of imported) expect(docsPackage.devDependencies, p).toHaveProperty(p);
  });

  it("the hand-instrumented example emits agent, model, tool and handoff spans and run tags", () => {
    const example = tracerSnippets()["agents.ts"];
    for (const shape of ['"invoke_agent"', '"chat"', '"execute_tool"', '"transfer_to_', '"crux.outcome.success"', '"crux.task.id"'])
      expect(example).toContain(shape);
  });

  it("the tour has three calls, each followed by its answer", () => {
    expect(tourCalls().map((c) => c.path)).toEqual(["/api/v1/traces", "/api/v1/traces/$TRACE/scores", "/api/v1/traces/$TRACE/findings"]);
  });
});

describe("comparing a shown answer with the service's", () => {
  const actual = { traceId: "0af7651916cd43dd8448eb211c80319c", items: [{ agent: "planner", costUsd: 0.00021749999999999997, wallMs: 12.3, extra: 1 }] };

  it("accepts an abridged answer whose ids and durations vary", () => {
    expect(disagreements({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", items: [{ agent: "planner", costUsd: 0.0002175, wallMs: 99 }] }, actual)).toEqual([]);
  });

  it("names every value that drifted: a changed number, a missing key, another item count", () => {
    expect(disagreements({ items: [{ agent: "writer", costUsd: 0.0003 }] }, actual)).toEqual([
      '$.items[0].agent: shown "writer", answered "planner"',
      "$.items[0].costUsd: shown 0.0003, answered 0.00021749999999999997",
    ]);
    expect(disagreements({ items: [], missing: 1 }, actual)).toEqual(["$.items: shown 0 items, answered 1", "$.missing: not in the answer"]);
    expect(disagreements({ traceId: "not-an-id" }, actual)).toEqual(['$.traceId: shown "not-an-id", answered "0af7651916cd43dd8448eb211c80319c"']);
  });
});
