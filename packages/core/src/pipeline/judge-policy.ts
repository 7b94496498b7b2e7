/**
 * Pure parts of the judge policy: which share of the traces a judge reads
 * (deterministic by trace id, so a retry or a second worker decides the same),
 * and the self-preference check (a judge grading a model of its own family is
 * known to favour it, so Crux warns when they match).
 */

/** FNV-1a over the trace id, as a fraction in [0, 1). */
function unitHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 0x1_0000_0000;
}

/** Whether a trace that did not fail falls in the sampled share (0: none, 1: all). */
export function judgeSampled(traceId: string, share: number): boolean {
  if (share <= 0) return false;
  if (share >= 1) return true;
  return unitHash(traceId) < share;
}

const families: readonly [family: string, pattern: RegExp][] = [
  ["claude", /(^|[^a-z])claude/],
  ["gpt", /(^|[^a-z])(gpt|chatgpt|o[1-9](-|$)|davinci|text-embedding)/],
  ["gemini", /(^|[^a-z])(gemini|gemma|palm|bison)/],
  ["llama", /(^|[^a-z])(llama|codellama)/],
  ["mistral", /(^|[^a-z])(mistral|mixtral|codestral|ministral|magistral|pixtral)/],
  ["qwen", /(^|[^a-z])(qwen|qwq)/],
  ["deepseek", /deepseek/],
  ["command", /(^|[^a-z])command(-|$)/],
  ["grok", /(^|[^a-z])grok/],
  ["phi", /(^|[^a-z])phi-?\d/],
];

/** The model family of a model name (`anthropic/claude-3-5-sonnet` → claude, `llama3.1:8b` → llama), or null when unknown. */
export function modelFamily(model: string): string | null {
  const m = model.toLowerCase();
  for (const [family, pattern] of families) if (pattern.test(m)) return family;
  return null;
}

/** A warning when the judge's model family is one of the agents' models, else null. */
export function selfPreferenceWarning(judgeModel: string, agentModels: readonly string[]): string | null {
  const family = modelFamily(judgeModel);
  if (family === null) return null;
  const same = [...new Set(agentModels.filter((m) => modelFamily(m) === family))].sort();
  if (same.length === 0) return null;
  return `the judge model ${judgeModel} is of the ${family} family, as the agents' ${same.slice(0, 5).join(", ")}: judges tend to favour their own family's output; prefer a judge of another family`;
}

const dayMs = 86_400_000;

/** The UTC day a judge spend counts for: its start and the next day's start (ms). */
export function judgeBudgetDay(nowMs: number): { startMs: number; endMs: number } {
  const startMs = Math.floor(nowMs / dayMs) * dayMs;
  return { startMs, endMs: startMs + dayMs };
}
