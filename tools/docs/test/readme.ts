/** The README's runnable parts: the quick start, its TypeScript snippets, the tour's calls and their shown answers. */
import { codeBlocks, readRepoFile, section } from "./markdown.ts";

export const readme = readRepoFile("README.md");

/** The two snippets of "Point a tracer at Crux", by the file name the README gives them. */
export function tracerSnippets(): { "tracing.ts": string; "agents.ts": string } {
  const ts = codeBlocks(section(readme, "Point a tracer at Crux")).filter((b) => b.lang === "ts");
  const setup = ts.find((b) => b.text.includes("export const provider"));
  const example = ts.find((b) => b.text.includes('from "./tracing.ts"'));
  if (!setup || !example) throw new Error("README: the SDK set-up (tracing.ts) or the hand-instrumented example (agents.ts) is missing");
  return { "tracing.ts": setup.text, "agents.ts": example.text };
}

/** Packages the snippets import. */
export function importedPackages(source: string): string[] {
  return [...source.matchAll(/from "([^".][^"]*)"/g)].map((m) => m[1]!);
}

export interface TourCall {
  path: string;
  shown: unknown;
}

/** The tour: each `curl -s localhost:8080<path>` block followed by the JSON it answered. */
export function tourCalls(): TourCall[] {
  const blocks = codeBlocks(section(readme, "A short tour"));
  const calls: TourCall[] = [];
  blocks.forEach((b, i) => {
    if (b.lang !== "sh") return;
    const m = /^curl -s localhost:8080(\/api\/v1\/\S+)\n$/.exec(b.text);
    if (!m) throw new Error(`README tour, line ${b.line}: a call the test cannot run (expected one "curl -s localhost:8080/api/v1/..." line): ${b.text}`);
    const answer = blocks[i + 1];
    if (answer?.lang !== "json") throw new Error(`README tour, line ${b.line}: the call is not followed by its JSON answer`);
    calls.push({ path: m[1]!, shown: JSON.parse(answer.text) });
  });
  return calls;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** Values that differ on every run: ids, times, durations. The README shows one run's; the test checks their kind. */
const VARYING_NUMBERS = new Set(["wallMs", "durationMs"]);

/**
 * Where `shown` (the README's, possibly abridged: an object may leave keys
 * out) disagrees with `actual` (the service's answer). Arrays must have the
 * same length; ids, timestamps and durations must be of the same kind; every
 * other value equal (numbers to 1e-9 relative).
 */
export function disagreements(shown: unknown, actual: unknown, path = "$"): string[] {
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${path}: shown an array, answered ${JSON.stringify(actual)}`];
    if (shown.length !== actual.length) return [`${path}: shown ${shown.length} items, answered ${actual.length}`];
    return shown.flatMap((s, i) => disagreements(s, actual[i], `${path}[${i}]`));
  }
  if (shown !== null && typeof shown === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [`${path}: shown an object, answered ${JSON.stringify(actual)}`];
    return Object.entries(shown).flatMap(([k, v]) =>
      k in actual ? disagreements(v, (actual as Record<string, unknown>)[k], `${path}.${k}`) : [`${path}.${k}: not in the answer`],
    );
  }
  const key = path.slice(path.lastIndexOf(".") + 1);
  if (typeof shown === "number" && typeof actual === "number") {
    if (VARYING_NUMBERS.has(key)) return [];
    return Math.abs(shown - actual) <= 1e-9 * Math.max(1, Math.abs(actual)) ? [] : [`${path}: shown ${shown}, answered ${actual}`];
  }
  if (typeof shown === "string" && typeof actual === "string") {
    for (const kind of [HEX32, HEX16, ISO]) if (kind.test(shown)) return kind.test(actual) ? [] : [`${path}: shown ${shown}, answered ${actual}`];
  }
  return shown === actual ? [] : [`${path}: shown ${JSON.stringify(shown)}, answered ${JSON.stringify(actual)}`];
}
