/**
 * The ablation variants an experiment needs for per-agent credit
 * (docs/experiments.md §5): N∖{i} for leave-one-out, every coalition for exact
 * Shapley, or the prefixes of seeded orderings for Monte-Carlo Shapley (the
 * report samples the same orderings from the same seed).
 */
import { mulberry32 } from "../stats/rng.ts";
import { maxExactShapleyAgents, orderingCoalitions, sampleOrderings } from "./shapley.ts";

export type AblationMode = "leave_one_out" | "all_coalitions" | "sampled_orderings";

export interface AblationVariant {
  name: string;
  description: string;
  activeAgents: string[];
}

/** A coalition's variant name: "agents:" and its sorted agents joined by "+", "agents:none" for the empty one. */
export function coalitionVariantName(agents: readonly string[]): string {
  return agents.length === 0 ? "agents:none" : `agents:${[...agents].sort().join("+")}`;
}

export function ablationVariants(agents: readonly string[], mode: AblationMode, opts: { orderings: number; seed: number }): AblationVariant[] {
  const names = [...new Set(agents)].sort();
  let coalitions: string[][];
  if (mode === "leave_one_out") coalitions = [names, ...names.map((a) => names.filter((x) => x !== a))];
  else if (mode === "all_coalitions") {
    if (names.length > maxExactShapleyAgents)
      throw new RangeError(`all coalitions of ${names.length} agents is too many; at most ${maxExactShapleyAgents} agents`);
    coalitions = Array.from({ length: 1 << names.length }, (_, mask) => names.filter((_, i) => (mask >> i) & 1));
  } else coalitions = orderingCoalitions(sampleOrderings(names, opts.orderings, mulberry32(opts.seed)));
  return coalitions.map((c) => ({
    name: coalitionVariantName(c),
    description: c.length === names.length ? "all agents" : `without ${names.filter((a) => !c.includes(a)).join(", ")}`,
    activeAgents: [...c].sort(),
  }));
}
