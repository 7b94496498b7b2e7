/**
 * What a judge call costs: USD per million tokens of common judge models,
 * matched with core's model-id rules (exact id, else the longest prefix at a
 * separator, so "gpt-6-luna-2026-09-22" is priced as "gpt-6-luna").
 *
 * List prices of the standard tier, short-prompt band, as the providers'
 * model and pricing pages gave them on 2026-11-30 (Claude Haiku 5.5 is
 * billed higher above 100K prompt tokens, OpenAI's GPT-5.6 and GPT-6 above
 * 272K; a judge prompt stays far below both, docs/judges.md §5). A model not
 * in the table (a local Ollama or vLLM model, a new release) costs null:
 * unknown, never guessed. Prices change; docs/judges.md §6.
 */
import { matchPrice, priceTokens, type ModelPrice, type PriceTable } from "@crux/core";

const p = (model: string, inputPerMTok: number, outputPerMTok: number): ModelPrice => ({ model, inputPerMTok, outputPerMTok });

export const defaultJudgePriceTable: PriceTable = [
  // Anthropic
  p("claude-fable-5-1", 10, 50),
  p("claude-opus-5-5", 4, 20),
  p("claude-opus-5", 5, 25),
  p("claude-sonnet-5-5", 2, 10),
  p("claude-sonnet-5", 2, 10),
  p("claude-haiku-5-5", 0.1, 0.5),
  p("claude-opus-4-8", 5, 25),
  p("claude-opus-4-7", 5, 25),
  p("claude-opus-4-6", 5, 25),
  p("claude-opus-4-5", 5, 25),
  p("claude-sonnet-4-6", 3, 15),
  p("claude-haiku-4-5", 1, 5),
  // OpenAI
  p("gpt-6-astra", 10, 50),
  p("gpt-6-sol", 2, 10),
  p("gpt-6-luna", 0.1, 0.5),
  p("gpt-5.6-sol", 5, 30),
  p("gpt-5.6-terra", 2, 12),
  p("gpt-5.6-luna", 0.2, 1.2),
  p("gpt-4.1", 2, 8),
  p("gpt-4.1-mini", 0.4, 1.6),
  p("gpt-4o-mini", 0.15, 0.6),
];

/** USD for one call, or null when the model has no price in the table. */
export function judgeCallCost(model: string, inputTokens: number, outputTokens: number, table: PriceTable = defaultJudgePriceTable): number | null {
  const match = matchPrice(model, table);
  return match === null ? null : priceTokens(match.price, { inputTokens, outputTokens, cachedTokens: 0 });
}
