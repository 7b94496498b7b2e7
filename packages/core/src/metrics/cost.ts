/**
 * Cost per span, per agent and per trace. Tracer-reported cost wins; else
 * tokens are priced from the table by model; a model the table does not know
 * is reported as unpriced, never as 0.
 */
import type { AgentKey, SpanAttribution } from "../attribution/types.ts";
import type { TraceTrajectories } from "../trajectory/types.ts";
import { agentNameFromKey } from "../trajectory/build.ts";
import { defaultPriceTable, matchPrice, priceTokens, type PriceMatch, type PriceTable } from "./price-table.ts";

export type SpanCostSource = "reported" | "price_table" | "unpriced";

export interface SpanCost {
  spanId: string;
  agentKey: AgentKey | null;
  model: string | null;
  /** Table entry used when priced from the table. */
  matchedModel: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  usd: number | null;
  source: SpanCostSource;
}

export interface CostBreakdown {
  reportedUsd: number;
  pricedUsd: number;
  /** reported + priced: what is known. */
  knownUsd: number;
  /** Tokens (input + output) that could not be priced. */
  unpricedTokens: number;
  complete: boolean;
  /** knownUsd when complete, else null: a partial sum is never passed off as the total. */
  totalUsd: number | null;
}

export interface UnpricedModel {
  model: string | null;
  spans: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export interface CostScore {
  total: CostBreakdown;
  agents: Array<{ key: AgentKey | null; agent: string | null } & CostBreakdown>;
  unpriced: UnpricedModel[];
  spans: SpanCost[];
}

interface Acc {
  reportedUsd: number;
  pricedUsd: number;
  unpricedTokens: number;
}

const emptyAcc = (): Acc => ({ reportedUsd: 0, pricedUsd: 0, unpricedTokens: 0 });

function toBreakdown(acc: Acc): CostBreakdown {
  const knownUsd = acc.reportedUsd + acc.pricedUsd;
  const complete = acc.unpricedTokens === 0;
  return {
    reportedUsd: acc.reportedUsd,
    pricedUsd: acc.pricedUsd,
    knownUsd,
    unpricedTokens: acc.unpricedTokens,
    complete,
    totalUsd: complete ? knownUsd : null,
  };
}

/** One literal per span: spreading a shared base object per span was the most expensive line of scoring. */
function spanCost(attr: SpanAttribution, model: string | null, matchedModel: string | null, usd: number | null, source: SpanCostSource): SpanCost {
  const { inputTokens, outputTokens, cachedTokens } = attr.counted;
  return { spanId: attr.spanId, agentKey: attr.agentKey, model, inputTokens, outputTokens, cachedTokens, matchedModel, usd, source };
}

export function scoreCost(t: TraceTrajectories, priceTable: PriceTable = defaultPriceTable): CostScore {
  const spans: SpanCost[] = [];
  const total = emptyAcc();
  const byAgent = new Map<AgentKey | null, Acc>();
  const unpriced = new Map<string | null, UnpricedModel>();
  // A trace uses a handful of models over many spans: match each model against the table once.
  const matches = new Map<string, PriceMatch | null>();
  const matchOf = (model: string): PriceMatch | null => {
    let match = matches.get(model);
    if (match === undefined) matches.set(model, (match = matchPrice(model, priceTable)));
    return match;
  };
  // Only spans with a cost or tokens count; they are sorted after that filter (the same order, fewer to sort).
  const ordered = [...t.attribution.bySpan.values()]
    .filter(({ counted }) => counted.cost !== null || counted.inputTokens !== 0 || counted.outputTokens !== 0)
    .sort((a, b) => (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0));
  for (const attr of ordered) {
    const { inputTokens, outputTokens, cachedTokens, cost } = attr.counted;
    const model = t.spanById.get(attr.spanId)?.model ?? null;
    const acc = byAgent.get(attr.agentKey) ?? emptyAcc();
    byAgent.set(attr.agentKey, acc);
    if (cost !== null) {
      spans.push(spanCost(attr, model, null, cost, "reported"));
      total.reportedUsd += cost;
      acc.reportedUsd += cost;
      continue;
    }
    const match = model === null ? null : matchOf(model);
    if (match !== null) {
      const usd = priceTokens(match.price, attr.counted);
      spans.push(spanCost(attr, model, match.price.model, usd, "price_table"));
      total.pricedUsd += usd;
      acc.pricedUsd += usd;
      continue;
    }
    spans.push(spanCost(attr, model, null, null, "unpriced"));
    total.unpricedTokens += inputTokens + outputTokens;
    acc.unpricedTokens += inputTokens + outputTokens;
    const u = unpriced.get(model) ?? { model, spans: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
    u.spans++;
    u.inputTokens += inputTokens;
    u.outputTokens += outputTokens;
    u.cachedTokens += cachedTokens;
    unpriced.set(model, u);
  }
  const nameOf = (key: AgentKey | null): string | null =>
    key === null ? null : (t.attribution.agents.find((a) => a.key === key)?.name ?? agentNameFromKey(key));
  return {
    total: toBreakdown(total),
    agents: [...byAgent.entries()].map(([key, acc]) => ({ key, agent: nameOf(key), ...toBreakdown(acc) })),
    unpriced: [...unpriced.values()],
    spans,
  };
}
