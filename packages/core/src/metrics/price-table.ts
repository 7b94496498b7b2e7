/**
 * Model prices (USD per million tokens) and model-id matching: the one table
 * that prices agents' spans (scoreCost) and judge calls (judgeCallCost).
 *
 * defaultPriceTable holds the providers' public list prices for the standard
 * (non-batch, non-priority) tier; where a provider prices by prompt length
 * (Gemini Pro; Claude Haiku 5.5 above 100K prompt tokens; GPT-5.6 and GPT-6
 * above 272K) the short-prompt band is used. The rows of models released
 * since 2025-08-15 are as the providers' pages gave them on 2026-11-30, the
 * others as on 2025-08-15 (docs/metrics.md §3 lists both). Claude cache reads
 * cost a tenth of the input price (Anthropic's rule for every model); a row
 * without a cached price bills cache reads at the input price. Prices
 * change: a project overrides a row through /api/v1/prices.
 */

export interface ModelPrice {
  /** Model id, lowercase (e.g. "gpt-4o", "claude-3-5-sonnet"); ids with a snapshot suffix match it (matchPrice). */
  model: string;
  inputPerMTok: number;
  outputPerMTok: number;
  /** Price of cache-read input tokens; absent = billed at the input price. */
  cachedInputPerMTok?: number;
}

export type PriceTable = readonly ModelPrice[];

const p = (model: string, inputPerMTok: number, outputPerMTok: number, cachedInputPerMTok?: number): ModelPrice =>
  cachedInputPerMTok === undefined ? { model, inputPerMTok, outputPerMTok } : { model, inputPerMTok, outputPerMTok, cachedInputPerMTok };

/** Anthropic bills a cache read at a tenth of the model's input price. */
const claude = (model: string, inputPerMTok: number, outputPerMTok: number): ModelPrice => p(model, inputPerMTok, outputPerMTok, inputPerMTok / 10);

export const defaultPriceTable: PriceTable = [
  // OpenAI, 2026-11-30 (no cached price published with these rows: cache reads bill at the input price)
  p("gpt-6-astra", 10, 50),
  p("gpt-6-sol", 2, 10),
  p("gpt-6-luna", 0.1, 0.5),
  p("gpt-5.6-sol", 5, 30),
  p("gpt-5.6-terra", 2, 12),
  p("gpt-5.6-luna", 0.2, 1.2),
  p("gpt-5.1", 1.25, 10, 0.125),
  // OpenAI, 2025-08-15
  p("gpt-5", 1.25, 10, 0.125),
  p("gpt-5-mini", 0.25, 2, 0.025),
  p("gpt-5-nano", 0.05, 0.4, 0.005),
  p("gpt-4o", 2.5, 10, 1.25),
  p("gpt-4o-mini", 0.15, 0.6, 0.075),
  p("gpt-4.1", 2, 8, 0.5),
  p("gpt-4.1-mini", 0.4, 1.6, 0.1),
  p("gpt-4.1-nano", 0.1, 0.4, 0.025),
  p("o3", 2, 8, 0.5),
  p("o3-mini", 1.1, 4.4, 0.55),
  p("o4-mini", 1.1, 4.4, 0.275),
  // Anthropic, 2026-11-30
  claude("claude-fable-5-1", 10, 50),
  claude("claude-opus-5-5", 4, 20),
  claude("claude-opus-5", 5, 25),
  claude("claude-sonnet-5-5", 2, 10),
  claude("claude-sonnet-5", 2, 10),
  claude("claude-haiku-5-5", 0.1, 0.5),
  claude("claude-opus-4-8", 5, 25),
  claude("claude-opus-4-7", 5, 25),
  claude("claude-opus-4-6", 5, 25),
  claude("claude-opus-4-5", 5, 25),
  claude("claude-sonnet-4-6", 3, 15),
  claude("claude-sonnet-4-5", 3, 15),
  claude("claude-haiku-4-5", 1, 5),
  // Anthropic, 2025-08-15
  claude("claude-opus-4-1", 15, 75),
  claude("claude-opus-4", 15, 75),
  claude("claude-sonnet-4", 3, 15),
  claude("claude-3-7-sonnet", 3, 15),
  claude("claude-3-5-sonnet", 3, 15),
  claude("claude-3-5-haiku", 0.8, 4),
  p("claude-3-haiku", 0.25, 1.25, 0.03),
  claude("claude-3-opus", 15, 75),
  // Google, 2025-08-15
  p("gemini-1.5-pro", 1.25, 5, 0.3125),
  p("gemini-1.5-flash", 0.075, 0.3, 0.01875),
  p("gemini-2.0-flash", 0.1, 0.4, 0.025),
  p("gemini-2.0-flash-lite", 0.075, 0.3, 0.075),
  p("gemini-2.5-pro", 1.25, 10, 0.31),
  p("gemini-2.5-flash", 0.3, 2.5, 0.075),
  p("gemini-2.5-flash-lite", 0.1, 0.4, 0.025),
];

/**
 * Lowercase and drop routing prefixes ("models/gemini-1.5-pro",
 * "openai/gpt-4o", "anthropic.claude-3-5-sonnet-...") so ids from gateways
 * and SDKs match the table.
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  const slash = id.lastIndexOf("/");
  if (slash >= 0) id = id.slice(slash + 1);
  id = id.replace(/^(anthropic|openai|google|us\.anthropic|eu\.anthropic|vertex_ai|azure)\./, "");
  return id;
}

export interface PriceMatch {
  price: ModelPrice;
  match: "exact" | "prefix";
}

/**
 * What may follow a table id in a model id of the same model: a snapshot
 * (date "-2024-08-06", "-20241022", "@20250514", "-0613", "-001") or
 * "-latest", then anything (a gateway's "-v1:0"). A version ("-5"), a size
 * or tier ("-mini", "-lite") or a preview is another model.
 */
const SNAPSHOT_SUFFIX = /^[-:@_](?:\d{4}-\d{2}-\d{2}|\d{8}|\d{3,4}|latest)(?:[-:@_.].*)?$/;

/**
 * Exact id first; else the longest table id the model id extends by a
 * snapshot suffix only ("gpt-4o-2024-08-06" → "gpt-4o"; "claude-opus-4-5" is
 * never "claude-opus-4", "gpt-4o-mini" never "gpt-4o"): an unknown model stays
 * unpriced rather than billed at a neighbour's price.
 */
export function matchPrice(model: string, table: PriceTable): PriceMatch | null {
  const id = normalizeModelId(model);
  let best: ModelPrice | null = null;
  for (const entry of table) {
    if (entry.model.toLowerCase() === id) return { price: entry, match: "exact" };
  }
  for (const entry of table) {
    const key = entry.model.toLowerCase();
    if (id.startsWith(key) && SNAPSHOT_SUFFIX.test(id.slice(key.length)) && (best === null || key.length > best.model.length)) best = entry;
  }
  return best === null ? null : { price: best, match: "prefix" };
}

/** Cached tokens are part of input tokens: bill (input - cached) at the input price and cached at the cached price. */
export function priceTokens(price: ModelPrice, tokens: { inputTokens: number; outputTokens: number; cachedTokens: number }): number {
  const cached = Math.min(Math.max(tokens.cachedTokens, 0), Math.max(tokens.inputTokens, 0));
  const uncached = Math.max(tokens.inputTokens - cached, 0);
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  return (uncached * price.inputPerMTok + cached * cachedPrice + tokens.outputTokens * price.outputPerMTok) / 1_000_000;
}
