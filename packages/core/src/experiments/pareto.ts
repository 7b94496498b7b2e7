/** Quality against cost across variants (docs/experiments.md §4): the Pareto frontier. */

export interface QualityCostPoint {
  id: string;
  quality: number;
  cost: number;
}

/** Ids of the points no other point dominates (at least as good and at most as costly, strictly better in one). */
export function paretoFrontier(points: readonly QualityCostPoint[]): Set<string> {
  const frontier = new Set<string>();
  for (const p of points) {
    const dominated = points.some((q) => q !== p && q.quality >= p.quality && q.cost <= p.cost && (q.quality > p.quality || q.cost < p.cost));
    if (!dominated) frontier.add(p.id);
  }
  return frontier;
}
