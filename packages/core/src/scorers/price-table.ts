/**
 * Model prices (USD per million tokens) and model-id matching.
 *
 * defaultPriceTable holds the providers' public list prices for the standard
 * (non-batch, non-priority) tier as known on 2025-08-15; where a provider
 * prices by prompt length (Gemini Pro) the short-prompt tier is used. Prices
 * change: projects should override the table rather than trust these forever.
 */

export interface ModelPrice {
  /** Model id or id prefix, lowercase (e.g. "gpt-4o", "claude-3-5-sonnet"). */
  model: string;
  inputPerMTok: number;
  outputPerMTok: number;
  /** Price of cache-read input tokens; absent = billed at the input price. */
  cachedInputPerMTok?: number;
}

export type PriceTable = readonly ModelPrice[];

const p = (model: string, inputPerMTok: number, outputPerMTok: number, cachedInputPerMTok: number): ModelPrice => ({
  model,
  inputPerMTok,
  outputPerMTok,
  cachedInputPerMTok,
});

export const defaultPriceTable: PriceTable = [
  // OpenAI
  p("gpt-4o", 2.5, 10, 1.25),
  p("gpt-4o-mini", 0.15, 0.6, 0.075),
  p("gpt-4.1", 2, 8, 0.5),
  p("gpt-4.1-mini", 0.4, 1.6, 0.1),
  p("gpt-4.1-nano", 0.1, 0.4, 0.025),
  p("o3", 2, 8, 0.5),
  p("o3-mini", 1.1, 4.4, 0.55),
  p("o4-mini", 1.1, 4.4, 0.275),
  p("gpt-5", 1.25, 10, 0.125),
  p("gpt-5-mini", 0.25, 2, 0.025),
  p("gpt-5-nano", 0.05, 0.4, 0.005),
  // Anthropic (cached = cache-read price)
  p("claude-3-5-sonnet", 3, 15, 0.3),
  p("claude-3-7-sonnet", 3, 15, 0.3),
  p("claude-sonnet-4", 3, 15, 0.3),
  p("claude-3-5-haiku", 0.8, 4, 0.08),
  p("claude-3-haiku", 0.25, 1.25, 0.03),
  p("claude-3-opus", 15, 75, 1.5),
  p("claude-opus-4", 15, 75, 1.5),
  p("claude-opus-4-1", 15, 75, 1.5),
  // Google
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
 * Exact id first, then the longest table entry that is a prefix of the id at a
 * separator ("gpt-4o-2024-08-06" → "gpt-4o", never "gpt-4o" → "gpt-4"): an
 * unknown model stays unpriced rather than billed at a neighbour's price.
 */
export function matchPrice(model: string, table: PriceTable): PriceMatch | null {
  const id = normalizeModelId(model);
  let best: ModelPrice | null = null;
  for (const entry of table) {
    const key = entry.model.toLowerCase();
    if (key === id) return { price: entry, match: "exact" };
    if (id.startsWith(key) && /^[-:@_]/.test(id.slice(key.length)) && (best === null || key.length > best.model.length)) best = entry;
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
