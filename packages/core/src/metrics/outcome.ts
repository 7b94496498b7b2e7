/**
 * Outcome and run tags of a run (crux.outcome.success, crux.task.id, ...):
 * each span's parsed runTags, the root span first, then any span in start
 * order; an override set through the API wins over both.
 */
import type { NormalizedSpan, SpanRunTags } from "../span.ts";
import type { TraceTrajectories } from "../trajectory/types.ts";
import { compareSpansByStart } from "../trajectory/build.ts";

/** A run's tags: the span tags less the goal (a trajectory's); isBaseline is crux.baseline, else true when the variant is literally "baseline". */
export type RunTags = Omit<SpanRunTags, "goal">;

export type RunTagsOverride = Partial<RunTags>;
export type TagSource = "override" | "root_span" | "span" | "absent";

export interface RunTagsResult extends RunTags {
  sources: Record<keyof RunTags, TagSource>;
}

const FIELDS: ReadonlyArray<keyof RunTags> = [
  "success",
  "score",
  "taskId",
  "variant",
  "isBaseline",
  "experimentId",
  "seed",
  "trial",
  "activeAgents",
  "replayId",
];

export function readRunTags(t: Pick<TraceTrajectories, "spans" | "rootSpanId">, override: RunTagsOverride = {}): RunTagsResult {
  const root = t.rootSpanId === null ? undefined : t.spans.find((s) => s.spanId === t.rootSpanId);
  const others = t.spans.filter((s) => s.spanId !== t.rootSpanId).sort(compareSpansByStart);
  const ordered: Array<[NormalizedSpan, TagSource]> = [
    ...(root === undefined ? [] : [[root, "root_span"] as [NormalizedSpan, TagSource]]),
    ...others.map((s) => [s, "span"] as [NormalizedSpan, TagSource]),
  ];
  const result = {} as RunTags;
  const sources = {} as Record<keyof RunTags, TagSource>;
  const read = <K extends keyof RunTags>(field: K): void => {
    const forced = override[field];
    if (forced !== undefined) {
      result[field] = forced as RunTags[K];
      sources[field] = "override";
      return;
    }
    for (const [span, source] of ordered) {
      // Parsed by the normalizer (docs/conventions.md §7): null when absent or unparseable.
      const parsed = span.runTags[field];
      if (parsed === null) continue;
      result[field] = parsed as RunTags[K];
      sources[field] = source;
      return;
    }
    result[field] = null as RunTags[K];
    sources[field] = "absent";
  };
  for (const field of FIELDS) read(field);
  if (result.isBaseline === null && result.variant !== null && result.variant.toLowerCase() === "baseline") {
    result.isBaseline = true;
    sources.isBaseline = sources.variant;
  }
  return { ...result, sources };
}
