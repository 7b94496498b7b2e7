/**
 * What a judge call costs: priced with the same table and model-id rules as
 * the agents' spans (core's defaultPriceTable and matchPrice; docs/metrics.md
 * §3), so one model costs the same whether it ran in a trace or judged it. A
 * model not in the table (a local Ollama or vLLM model, a new release) costs
 * null: unknown, never guessed.
 */
import { defaultPriceTable, matchPrice, priceTokens, type PriceTable } from "@crux/core";

/** USD for one call, or null when the model has no price in the table. */
export function judgeCallCost(model: string, inputTokens: number, outputTokens: number, table: PriceTable = defaultPriceTable): number | null {
  const match = matchPrice(model, table);
  return match === null ? null : priceTokens(match.price, { inputTokens, outputTokens, cachedTokens: 0 });
}
