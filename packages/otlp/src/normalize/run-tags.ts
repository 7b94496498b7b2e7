/**
 * Run tags (docs/conventions.md §7). At ingest, readTags() collects the
 * crux.* attributes of a span and its resource (stored as the tags column);
 * on read, readRunTags() parses them into the canonical SpanRunTags core
 * scores with.
 */
import type { AttrValue, Attributes, DecodedSpan, SpanRunTags, SpanTagValue } from "@crux/core";
import { CRUX_TAG_KEYS, CRUX_TAGS } from "../semconv.ts";

type Tags = Record<string, SpanTagValue>;

/** A scalar as is; an array of strings (crux.agents.active) as a copy; anything else is no tag value. */
function tagValue(v: AttrValue | undefined): SpanTagValue | undefined {
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return [...(v as string[])];
  return undefined;
}

/** Resource tags, computed once per resource: spans of one ResourceSpans share the resource object. */
const resourceTagsCache = new WeakMap<Attributes, Readonly<Tags>>();

/**
 * crux.* tags: the span's own value wins over the resource's. Spans without
 * tags of their own share their resource's (frozen) tags object.
 */
export function readTags(span: DecodedSpan): Readonly<Tags> {
  let fromResource = resourceTagsCache.get(span.resource);
  if (fromResource === undefined) {
    fromResource = Object.freeze(collectTags(span.resource, {}));
    resourceTagsCache.set(span.resource, fromResource);
  }
  let own: Tags | null = null;
  for (const key of CRUX_TAG_KEYS) {
    const v = tagValue(span.attributes[key]);
    if (v !== undefined) (own ??= {})[key] = v;
  }
  return own === null ? fromResource : collectTags(span.resource, own);
}

function collectTags(from: Attributes, into: Tags): Tags {
  for (const key of CRUX_TAG_KEYS) {
    if (into[key] !== undefined) continue;
    const v = tagValue(from[key]);
    if (v !== undefined) into[key] = v;
  }
  return into;
}

type TagValue = SpanTagValue;

const NO_RUN_TAGS: SpanRunTags = Object.freeze({
  success: null,
  score: null,
  taskId: null,
  goal: null,
  variant: null,
  isBaseline: null,
  experimentId: null,
  seed: null,
  trial: null,
  activeAgents: null,
  replayId: null,
});

/** Booleans as true/false, 1/0, yes/no (strings or numbers); anything else is unparseable. */
function toBool(v: TagValue | undefined): boolean | null {
  if (v === undefined || Array.isArray(v)) return null;
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : null;
  const s = v.trim().toLowerCase();
  if (s === "true" || s === "1" || s === "yes") return true;
  if (s === "false" || s === "0" || s === "no") return false;
  return null;
}

function toNumber(v: TagValue | undefined): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** Trimmed, non-empty; numbers and booleans as their text. */
function toStr(v: TagValue | undefined): string | null {
  if (v === undefined || Array.isArray(v)) return null;
  const s = String(v).trim();
  return s === "" ? null : s;
}

/** A non-negative integer (a trial number); anything else is unparseable. */
function toTrial(v: TagValue | undefined): number | null {
  const n = toNumber(v);
  return n !== null && Number.isInteger(n) && n >= 0 ? n : null;
}

/**
 * An agent set: a string array, or one comma-separated string; names trimmed, empty ones dropped,
 * sorted and deduplicated. An empty list is a coalition too (the empty one) but only when given
 * as an array; an empty string is no tag.
 */
function toAgentSet(v: TagValue | undefined): string[] | null {
  if (Array.isArray(v)) return [...new Set(v.map((x) => x.trim()).filter((x) => x !== ""))].sort();
  if (typeof v !== "string" || v.trim() === "") return null;
  return [
    ...new Set(
      v
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== ""),
    ),
  ].sort();
}

/** The canonical run tags of a span's stored tags; a value that does not parse is null, so the next span's value is read. */
export function readRunTags(tags: Readonly<Tags>): SpanRunTags {
  // Most spans carry no tags: one shared frozen object.
  let any = false;
  for (const _ in tags) {
    any = true;
    break;
  }
  if (!any) return NO_RUN_TAGS;
  const goal = tags[CRUX_TAGS.taskGoal];
  return {
    success: toBool(tags[CRUX_TAGS.outcomeSuccess]),
    score: toNumber(tags[CRUX_TAGS.outcomeScore]),
    taskId: toStr(tags[CRUX_TAGS.taskId]),
    // The goal is the task statement verbatim: only a string with some text counts.
    goal: typeof goal === "string" && goal.trim() !== "" ? goal : null,
    variant: toStr(tags[CRUX_TAGS.variant]),
    isBaseline: toBool(tags[CRUX_TAGS.baseline]),
    experimentId: toStr(tags[CRUX_TAGS.experimentId]),
    seed: toStr(tags[CRUX_TAGS.seed]),
    trial: toTrial(tags[CRUX_TAGS.trial]),
    activeAgents: toAgentSet(tags[CRUX_TAGS.activeAgents]),
    replayId: toStr(tags[CRUX_TAGS.replayId]),
  };
}
