/**
 * Langfuse's usage and cost JSON (docs/conventions.md §3.11), read into
 * Crux's meaning of the counts (§3.2): input tokens include the cached ones,
 * output tokens include reasoning. Langfuse keeps the parts apart (`input`
 * leaves out `input_cached_tokens` and every other `input_*` detail), so
 * they are added back here, each counted once. Parsed only on spans that
 * carry the keys and no standard token keys.
 */
import type { AttrValue } from "@crux/core";
import { LANGFUSE_COST, LANGFUSE_USAGE } from "../semconv.ts";
import { asObject } from "./attrs.ts";

export interface LangfuseUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
}

export function readLangfuseUsage(value: AttrValue | undefined): LangfuseUsage | null {
  const usage = asObject(value);
  if (usage === null) return null;
  const openAiInput = first(usage, LANGFUSE_USAGE.openAiInputKeys);
  const openAiOutput = first(usage, LANGFUSE_USAGE.openAiOutputKeys);
  if (openAiInput !== null || openAiOutput !== null) return readOpenAiUsage(usage, openAiInput, openAiOutput);

  let inputTokens = num(usage[LANGFUSE_USAGE.input]);
  let outputTokens = num(usage[LANGFUSE_USAGE.output]);
  for (const [key, raw] of Object.entries(usage)) {
    const n = num(raw);
    if (n === null) continue;
    if (key.startsWith(LANGFUSE_USAGE.inputDetailPrefix) || (LANGFUSE_USAGE.anthropicInputKeys as readonly string[]).includes(key)) {
      inputTokens = (inputTokens ?? 0) + n;
    } else if (key.startsWith(LANGFUSE_USAGE.outputDetailPrefix)) {
      outputTokens = (outputTokens ?? 0) + n;
    }
  }
  const cachedTokens = first(usage, LANGFUSE_USAGE.cachedKeys);
  if (inputTokens === null && outputTokens === null && cachedTokens === null) return null;
  return { inputTokens, outputTokens, cachedTokens };
}

/** An OpenAI usage object passed through as is: its totals already include the cached part. */
function readOpenAiUsage(usage: Record<string, AttrValue>, inputTokens: number | null, outputTokens: number | null): LangfuseUsage {
  let cachedTokens: number | null = null;
  for (const key of LANGFUSE_USAGE.openAiInputDetails) {
    const details = asObject(usage[key]);
    if (details === null) continue;
    cachedTokens = num(details[LANGFUSE_USAGE.openAiCachedKey]);
    if (cachedTokens !== null) break;
  }
  return { inputTokens, outputTokens, cachedTokens };
}

/** Reported USD cost: `total`, else the sum of the parts. */
export function readLangfuseCost(value: AttrValue | undefined): number | null {
  const cost = asObject(value);
  if (cost === null) return null;
  const total = num(cost[LANGFUSE_COST.total]);
  if (total !== null) return total;
  let sum: number | null = null;
  for (const raw of Object.values(cost)) {
    const n = num(raw);
    if (n !== null) sum = (sum ?? 0) + n;
  }
  return sum;
}

function first(usage: Record<string, AttrValue>, keys: readonly string[]): number | null {
  for (const key of keys) {
    const n = num(usage[key]);
    if (n !== null) return n;
  }
  return null;
}

function num(v: AttrValue | undefined): number | null {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}
