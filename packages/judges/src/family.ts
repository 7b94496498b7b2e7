/**
 * Self-preference (docs/judges.md §7): a judge model tends to rate output of
 * its own family higher. When the judge's family is one the trace's agents'
 * model spans use, the verdict carries a warning.
 */
import { normalizeModelId, type NormalizedSpan } from "@crux/core";

const FAMILIES: ReadonlyArray<readonly [string, RegExp]> = [
  ["claude", /claude/],
  ["gpt", /(^|[^a-z0-9])(gpt|chatgpt|o1|o3|o4)([^a-z]|$)/],
  ["gemini", /gemini|gemma/],
  ["llama", /llama/],
  ["mistral", /mistral|mixtral|codestral|ministral|magistral|devstral|pixtral/],
  ["qwen", /qwen|qwq/],
  ["deepseek", /deepseek/],
  ["grok", /grok/],
  ["phi", /(^|[^a-z])phi-?\d/],
  ["command", /command-(r|a)|cohere/],
];

/** The model's family ("claude", "gpt", ...), or null when the id names none we know. */
export function modelFamily(model: string): string | null {
  const id = normalizeModelId(model);
  for (const [family, pattern] of FAMILIES) if (pattern.test(id)) return family;
  return null;
}

export function selfPreferenceWarning(judgeModel: string, spans: readonly NormalizedSpan[]): string | null {
  const family = modelFamily(judgeModel);
  if (family === null) return null;
  const same = [...new Set(spans.map((s) => s.model).filter((m): m is string => m !== null && modelFamily(m) === family))].sort();
  if (same.length === 0) return null;
  const listed = same.slice(0, 5).join(", ") + (same.length > 5 ? `, and ${same.length - 5} more` : "");
  return `the judge model ${judgeModel} is of the ${family} family, which this trace's agents use (${listed}); a judge tends to favour output of its own family`;
}
