/**
 * Code and docs speak of the product: no comment or page names the ticket a
 * change came from ("issue 11"); the commit log holds that history.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./markdown.ts";

const TICKET = /\b[Ii]ssues? #?\d+/;
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|yml|yaml)$/;

function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "golden" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...textFiles(path));
    else if (TEXT.test(name)) out.push(path);
  }
  return out;
}

function ticketMentions(files: string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (TICKET.test(line) ? [`${relative(repoRoot, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe("no ticket numbers", () => {
  it("the check finds a ticket in a comment and leaves other numbers alone", () => {
    const dir = mkdtempSync(join(tmpdir(), "crux-tickets-"));
    try {
      writeFileSync(join(dir, "a.ts"), "// see issue 12 for why\nconst issues = 3; // 3 issues found\n");
      expect(ticketMentions([join(dir, "a.ts")]).map((m) => m.slice(m.indexOf(":") + 1))).toEqual(["1: // see issue 12 for why"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("in any source file, test, benchmark or doc", () => {
    const files = [
      ...["packages", "services", "tools", "bench", "docs", "migrations"].flatMap((d) => textFiles(join(repoRoot, d))),
      ...readdirSync(repoRoot)
        .filter((f) => TEXT.test(f))
        .map((f) => join(repoRoot, f)),
    ];
    expect(files.length).toBeGreaterThan(100);
    // This file names the pattern it looks for, never a ticket.
    expect(ticketMentions(files.filter((f) => !f.endsWith("no-tickets.test.ts")))).toEqual([]);
  });
});
