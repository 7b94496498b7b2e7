/**
 * Outcome and run tags (crux.outcome.success, crux.task.id, ...), read from
 * the root span first, then any span in start order; an override set through
 * the API wins over both.
 */
import type { NormalizedSpan } from "../span.ts";
import type { TraceTrajectories } from "../trajectory/types.ts";
import { compareByStart } from "../trajectory/build.ts";

export interface RunTags {
  success: boolean | null;
  score: number | null;
  taskId: string | null;
  variant: string | null;
  /** crux.baseline, else true when the variant is literally "baseline". */
  isBaseline: boolean | null;
  experimentId: string | null;
  seed: string | null;
}

export type RunTagsOverride = Partial<RunTags>;
export type TagSource = "override" | "root_span" | "span" | "absent";

export interface RunTagsResult extends RunTags {
  sources: Record<keyof RunTags, TagSource>;
}

const TAG_KEYS: Record<keyof RunTags, string> = {
  success: "crux.outcome.success",
  score: "crux.outcome.score",
  taskId: "crux.task.id",
  variant: "crux.variant",
  isBaseline: "crux.baseline",
  experimentId: "crux.experiment.id",
  seed: "crux.seed",
};

type TagValue = string | number | boolean;

function toBool(v: TagValue): boolean | null {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : null;
  const s = v.trim().toLowerCase();
  if (s === "true" || s === "1" || s === "yes") return true;
  if (s === "false" || s === "0" || s === "no") return false;
  return null;
}

function toNumber(v: TagValue): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function toStr(v: TagValue): string | null {
  const s = String(v).trim();
  return s === "" ? null : s;
}

const PARSERS: { [K in keyof RunTags]: (v: TagValue) => RunTags[K] } = {
  success: toBool,
  score: toNumber,
  taskId: toStr,
  variant: toStr,
  isBaseline: toBool,
  experimentId: toStr,
  seed: toStr,
};

export function readRunTags(t: Pick<TraceTrajectories, "spans" | "rootSpanId">, override: RunTagsOverride = {}): RunTagsResult {
  const root = t.rootSpanId === null ? undefined : t.spans.find((s) => s.spanId === t.rootSpanId);
  const others = t.spans
    .filter((s) => s.spanId !== t.rootSpanId)
    .sort((a, b) => compareByStart({ startNs: a.startTimeUnixNano, spanId: a.spanId }, { startNs: b.startTimeUnixNano, spanId: b.spanId }));
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
      const raw = span.tags[TAG_KEYS[field]];
      if (raw === undefined) continue;
      const parsed = PARSERS[field](raw);
      if (parsed === null) continue;
      result[field] = parsed;
      sources[field] = source;
      return;
    }
    result[field] = null as RunTags[K];
    sources[field] = "absent";
  };
  for (const field of Object.keys(TAG_KEYS) as Array<keyof RunTags>) read(field);
  if (result.isBaseline === null && result.variant !== null && result.variant.toLowerCase() === "baseline") {
    result.isBaseline = true;
    sources.isBaseline = sources.variant;
  }
  return { ...result, sources };
}
