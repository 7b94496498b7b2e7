/**
 * pnpm runs a dependency's install scripts only when pnpm-workspace.yaml allows them
 * (onlyBuiltDependencies) and prints a warning box at every install for the others
 * unless they are declared not needed (ignoredBuiltDependencies). Every dependency
 * with a build script must be in one list or the other, so an install stays quiet and
 * each choice is written down with its reason.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const store = join(root, "node_modules", ".pnpm");

/** The entries of a top-level list in pnpm-workspace.yaml (`key:` followed by `  - name` lines). */
function workspaceList(key: string): string[] {
  const text = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const block = new RegExp(`^${key}:\\n((?:[ \\t]+-[^\\n]*\\n|[ \\t]*#[^\\n]*\\n)*)`, "m").exec(text);
  return block ? [...block[1]!.matchAll(/^[ \t]+-\s*["']?([^"'\s#]+)/gm)].map((m) => m[1]!) : [];
}

/** Installed packages whose package.json has an install hook, or a binding.gyp (pnpm runs node-gyp for those). */
function packagesWithBuildScripts(): string[] {
  const found = new Set<string>();
  for (const entry of readdirSync(store)) {
    if (entry === "node_modules" || entry.startsWith(".") || entry.endsWith(".yaml")) continue;
    const name = entry.slice(0, entry.indexOf("@", 1)).replace("+", "/");
    const dir = join(store, entry, "node_modules", name);
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const scripts = (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, string> }).scripts ?? {};
    if (scripts.preinstall || scripts.install || scripts.postinstall || existsSync(join(dir, "binding.gyp"))) found.add(name);
  }
  return [...found].sort();
}

describe("dependencies with build scripts (pnpm-workspace.yaml)", () => {
  it("are each either allowed to build or declared not needed", () => {
    const declared = new Set([...workspaceList("onlyBuiltDependencies"), ...workspaceList("ignoredBuiltDependencies")]);
    const found = packagesWithBuildScripts();
    expect(found.length).toBeGreaterThan(0); // the scan sees the store (esbuild has one)
    expect(found.filter((name) => !declared.has(name))).toEqual([]);
  });
});
