/**
 * Every relative link in the documentation resolves: the file (or folder)
 * exists, and an #anchor names a heading of the file it points into.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, documentationFiles, linkTargets, readRepoFile, repoRoot } from "./markdown.ts";

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(readRepoFile(file))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const resolved = path === "" ? join(repoRoot, file) : normalize(join(repoRoot, dirname(file), path));
    if (!resolved.startsWith(repoRoot) || !existsSync(resolved)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) {
      broken.push(`${file}: ${target} (an anchor into something that is not Markdown)`);
    } else if (!anchors(readFileSync(resolved, "utf8")).has(anchor)) {
      broken.push(`${file}: ${target} (no heading with that anchor)`);
    }
  }
  return broken;
}

describe("documentation links", () => {
  it("covers the landing page, the docs by audience and every README", () => {
    const files = documentationFiles();
    for (const f of ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "docs/api.md", "docs/configuration.md", "docs/instrumenting.md", "bench/README.md"]) {
      expect(files).toContain(f);
    }
  });

  it.each(documentationFiles())("%s: every relative link resolves, anchors included", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});
