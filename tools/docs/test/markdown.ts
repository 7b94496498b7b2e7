/**
 * Reading the project's Markdown the way GitHub renders it: fenced code
 * blocks, links outside them, and heading anchors (GitHub's slugs).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

export const readRepoFile = (path: string): string => readFileSync(join(repoRoot, path), "utf8");

/** The Markdown files whose links must resolve: the landing page, the docs by audience, and every package and service README. */
export function documentationFiles(): string[] {
  const files = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "bench/README.md"];
  files.push(
    ...readdirSync(join(repoRoot, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  );
  for (const area of ["packages", "services", "tools"]) {
    for (const dir of readdirSync(join(repoRoot, area))) {
      if (existsSync(join(repoRoot, area, dir, "README.md"))) files.push(`${area}/${dir}/README.md`);
    }
  }
  return files;
}

export interface CodeBlock {
  lang: string;
  text: string;
  /** Line (1-based) of the opening fence. */
  line: number;
}

export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split("\n");
  let open: { lang: string; line: number; body: string[] } | null = null;
  lines.forEach((l, i) => {
    const fence = /^```(\S*)\s*$/.exec(l);
    if (open === null && fence) open = { lang: fence[1]!, line: i + 1, body: [] };
    else if (open !== null && /^```\s*$/.test(l)) {
      blocks.push({ lang: open.lang, text: open.body.join("\n") + "\n", line: open.line });
      open = null;
    } else if (open !== null) open.body.push(l);
  });
  return blocks;
}

const withoutFences = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```\s*$/gm, "");

/** The text outside fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, "");
}

/** Every link target outside code: `[text](target)`. */
export function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a file's headings; a repeated heading gets -1, -2, ... as on GitHub. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The part of a Markdown file under one `## ` heading, up to the next. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}
