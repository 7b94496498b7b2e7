/**
 * CONTRIBUTING.md names the files each change touches; every path it names
 * exists, so a newcomer following a playbook never looks for a file that
 * moved. A path with a `<name>` placeholder must have its folder.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRepoFile, repoRoot, section } from "./markdown.ts";

const contributing = readRepoFile("CONTRIBUTING.md");

/** Backticked repository paths: they start at a top-level folder of the workspace. */
function namedPaths(text: string): string[] {
  const paths = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((p) => /^(packages|services|tools|bench|docs|migrations)\//.test(p));
  return [...new Set(paths)];
}

function missing(paths: string[]): string[] {
  return paths.filter((p) => {
    const placeholder = p.indexOf("<");
    const existing = placeholder === -1 ? p : p.slice(0, p.lastIndexOf("/", placeholder) + 1);
    return !existsSync(join(repoRoot, existing));
  });
}

describe("CONTRIBUTING.md", () => {
  const playbooks = section(contributing, "Playbooks");

  it("has a playbook for each common change", () => {
    const titles = [...playbooks.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    for (const t of ["Add a tracer convention", "Add a detector", "Add an LLM judge", "Add an alert metric", "Add a REST endpoint"])
      expect(titles).toContain(t);
  });

  it("names files in every playbook, and every path it names exists", () => {
    for (const playbook of playbooks.split(/^### /m).slice(1)) {
      expect(namedPaths(playbook).length, playbook.split("\n")[0]).toBeGreaterThan(2);
    }
    expect(missing(namedPaths(playbooks))).toEqual([]);
  });

  it("every folder of the layout table exists, and none is listed twice", () => {
    const folders = [...section(contributing, "Layout").matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.length).toBe(new Set(folders).size);
    expect(missing(folders)).toEqual([]);
  });

  it("the layout table lists every package, service and tool", () => {
    const listed = section(contributing, "Layout");
    const unlisted = ["packages", "services", "tools"].flatMap((area) =>
      readdirSync(join(repoRoot, area), { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(repoRoot, area, d.name, "package.json")))
        .map((d) => `${area}/${d.name}`)
        .filter((folder) => !listed.includes(`\`${folder}\``)),
    );
    expect(unlisted).toEqual([]);
  });

  it("the check catches a path that does not exist", () => {
    expect(missing(["packages/core/src/no-such-file.ts", "services/worker/src/processors/<name>.processor.ts", "services/nowhere/src/<name>.ts"])).toEqual([
      "packages/core/src/no-such-file.ts",
      "services/nowhere/src/<name>.ts",
    ]);
  });
});
