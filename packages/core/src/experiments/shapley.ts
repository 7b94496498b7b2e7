/**
 * Per-agent credit from coalition values (docs/experiments.md §5). V(S) is the
 * measured value of the system run with only the agents of S active; the
 * empty coalition is worth 0 unless it was run. Missing coalitions are listed,
 * never filled in.
 */
import type { Rng } from "../stats/rng.ts";

/** Above this many agents the exact sum (2^n coalitions) is not attempted. */
export const maxExactShapleyAgents = 10;

/** One name per coalition: its agents sorted, as JSON (agent names may hold any character). */
export function coalitionKey(agents: readonly string[]): string {
  return JSON.stringify([...new Set(agents)].sort());
}

/** Measured value of a coalition, or null when it was not run. */
export type CoalitionValue = (agents: readonly string[]) => number | null;

/** The lookup over measured coalition values keyed by coalitionKey; ∅ is 0 unless measured. */
export function coalitionLookup(measured: ReadonlyMap<string, number>): CoalitionValue {
  return (agents) => {
    const v = measured.get(coalitionKey(agents));
    if (v !== undefined) return v;
    return agents.length === 0 ? 0 : null;
  };
}

export type ExactShapley =
  | { status: "computed"; values: Record<string, number>; grandValue: number; emptyValue: number }
  | { status: "missing_coalitions"; missing: string[][] }
  | { status: "too_many_agents"; agents: number };

/** φᵢ = Σ over S ⊆ N∖{i} of |S|!(n−|S|−1)!/n! · (V(S∪{i}) − V(S)), when every coalition was measured. */
export function exactShapley(agents: readonly string[], value: CoalitionValue): ExactShapley {
  const names = [...new Set(agents)].sort();
  const n = names.length;
  if (n > maxExactShapleyAgents) return { status: "too_many_agents", agents: n };
  const size = 1 << n;
  const v = new Array<number>(size);
  const missing: string[][] = [];
  for (let mask = 0; mask < size; mask++) {
    const members = names.filter((_, i) => (mask >> i) & 1);
    const x = value(members);
    if (x === null) missing.push(members);
    else v[mask] = x;
  }
  if (missing.length > 0) return { status: "missing_coalitions", missing };
  const factorial = [1];
  for (let i = 1; i <= n; i++) factorial.push((factorial[i - 1] as number) * i);
  const values: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    let phi = 0;
    for (let mask = 0; mask < size; mask++) {
      if ((mask >> i) & 1) continue;
      const s = popcount(mask);
      const weight = ((factorial[s] as number) * (factorial[n - s - 1] as number)) / (factorial[n] as number);
      phi += weight * ((v[mask | (1 << i)] as number) - (v[mask] as number));
    }
    values[names[i] as string] = phi;
  }
  return { status: "computed", values, grandValue: v[size - 1] as number, emptyValue: v[0] as number };
}

function popcount(x: number): number {
  let c = 0;
  while (x) {
    x &= x - 1;
    c++;
  }
  return c;
}

/** `count` orderings of the agents, each a Fisher–Yates shuffle of the sorted names by `rng`. */
export function sampleOrderings(agents: readonly string[], count: number, rng: Rng): string[][] {
  const names = [...new Set(agents)].sort();
  const out: string[][] = [];
  for (let m = 0; m < count; m++) {
    const order = [...names];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.min(i, Math.floor(rng() * (i + 1)));
      [order[i], order[j]] = [order[j] as string, order[i] as string];
    }
    out.push(order);
  }
  return out;
}

/** Every coalition the orderings visit (each prefix), deduplicated: what a runner must execute for Monte-Carlo Shapley. */
export function orderingCoalitions(orderings: readonly string[][]): string[][] {
  const seen = new Map<string, string[]>();
  for (const order of orderings) {
    for (let i = 0; i <= order.length; i++) {
      const prefix = order.slice(0, i).sort();
      seen.set(coalitionKey(prefix), prefix);
    }
  }
  return [...seen.values()];
}

export type MonteCarloShapley =
  | { status: "computed"; values: Record<string, { value: number; standardError: number }>; orderings: number }
  | { status: "missing_coalitions"; missing: string[][] };

/**
 * φᵢ estimated as the mean of i's marginal contribution V(P∪{i}) − V(P) over the
 * given orderings (P: the agents before i), with the standard error of that mean.
 */
export function monteCarloShapley(orderings: readonly string[][], value: CoalitionValue): MonteCarloShapley {
  const missing = new Map<string, string[]>();
  const contributions = new Map<string, number[]>();
  for (const order of orderings) {
    let prefix: string[] = [];
    let before = value(prefix);
    if (before === null) missing.set(coalitionKey(prefix), []);
    for (const agent of order) {
      const next = [...prefix, agent];
      const after = value(next);
      if (after === null) missing.set(coalitionKey(next), [...next].sort());
      if (before !== null && after !== null) contributions.set(agent, [...(contributions.get(agent) ?? []), after - before]);
      prefix = next;
      before = after;
    }
  }
  if (missing.size > 0) return { status: "missing_coalitions", missing: [...missing.values()] };
  const values: Record<string, { value: number; standardError: number }> = {};
  for (const [agent, xs] of [...contributions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const m = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.length < 2 ? 0 : xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
    values[agent] = { value: m, standardError: Math.sqrt(variance / xs.length) };
  }
  return { status: "computed", values, orderings: orderings.length };
}
