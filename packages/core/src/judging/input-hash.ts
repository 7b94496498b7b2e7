/**
 * Content hashes of what a derived result was computed from (docs/architecture.md §6).
 * A stage stores the hash of its inputs next to its output and runs again only when
 * the hash it computes differs from the stored one. Hashing is pure (no I/O).
 */
import { createHash } from "node:crypto";
import type { RunTagsOverride } from "../metrics/outcome.ts";
import type { ScoringConfig } from "../pipeline/config.ts";

/**
 * Version of the deterministic scorers' output. Bump it when the same spans and
 * configuration would now score differently, so stored scores are not kept as current.
 */
export const scoringVersion = 3;

/**
 * Hash of a trace's span set. Spans are write-once by (project, trace, span id)
 * (the ingest insert does nothing on a conflict), so the sorted span ids identify
 * the set's content and no span body needs reading.
 */
export function spanSetHash(spanIds: readonly string[]): string {
  return sha256([...spanIds].sort().join("\n"));
}

/** Hash of named inputs: canonical JSON (keys sorted at every level, bigints as decimal strings, undefined dropped). */
export function inputHash(inputs: Record<string, unknown>): string {
  return sha256(canonicalJson(inputs));
}

export interface ScoreInputs {
  spanSetHash: string;
  outcomeOverride: RunTagsOverride | null;
  config: ScoringConfig;
  baselineRun: { tokens: number; costUsd: number | null; runs: number } | null;
}

/** The score stage's input hash: the span set, the outcome override, the scoring configuration and baseline it used, and the scorers' version. */
export function scoreInputHash(inputs: ScoreInputs): string {
  return scoreInputHasher(inputs.config, inputs.baselineRun)(inputs.spanSetHash, inputs.outcomeOverride);
}

/**
 * scoreInputHash for one configuration and baseline and any span set and override: the
 * configuration's canonical JSON (most of the hashed text) is made once, not per trace. The
 * text is inputHash's for `{ stage: "score", scoringVersion, ...inputs }`: its keys in sorted order.
 */
export function scoreInputHasher(
  config: ScoringConfig,
  baselineRun: ScoreInputs["baselineRun"],
): (spanSetHash: string, outcomeOverride: RunTagsOverride | null) => string {
  const head = `{${canonicalField("baselineRun", baselineRun)}"config":${canonicalJson(config)},`;
  return (spanSetHash, outcomeOverride) =>
    sha256(
      `${head}${canonicalField("outcomeOverride", outcomeOverride)}"scoringVersion":${scoringVersion},"spanSetHash":${JSON.stringify(spanSetHash)},"stage":"score"}`,
    );
}

/** `"name":value,` as canonicalJson writes a member; nothing for undefined, which it drops. */
function canonicalField(name: string, value: unknown): string {
  return value === undefined ? "" : `"${name}":${canonicalJson(value)},`;
}

/**
 * What a judge producer's verdict may depend on: "spans", the frozen span set (run tags
 * set on spans included); "outcome", the outcome and tags set through the API.
 */
export type JudgeInput = "spans" | "outcome";

export const judgeInputs: readonly JudgeInput[] = ["spans", "outcome"];

/**
 * A judge's input hash: only the inputs it declared, so a change to another one does not run it
 * again; and `settings`, the project settings its verdict also depends on (the outcome judge's
 * rubric), when it has any (a producer without them keeps the hash it always had).
 */
export function judgeInputHash(
  declared: readonly JudgeInput[],
  values: { spanSetHash: string; outcomeOverride: RunTagsOverride | null; settings?: string | null },
): string {
  const parts: Record<string, unknown> = { stage: "judge" };
  if (values.settings !== undefined && values.settings !== null) parts.settings = values.settings;
  for (const input of judgeInputs) {
    if (!declared.includes(input)) continue;
    parts[input] = input === "spans" ? values.spanSetHash : values.outcomeOverride;
  }
  return inputHash(parts);
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return v.toString();
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const obj = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, obj[k]]),
    );
  });
}
