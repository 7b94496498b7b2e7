/**
 * Evaluation time each project may spend on milestone expressions per window
 * (a fixed window, one minute by default): what a project used is charged as
 * results arrive; once its window's budget is spent its checks are not
 * evaluated until the next window. Traces of one project evaluating at once
 * each see the budget left when they start, so a window can be overspent by
 * at most one expression limit per thread.
 */
export function createProjectBudget(opts: { budgetMs: number; windowMs?: number; now?: () => number }) {
  const windowMs = opts.windowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const used = new Map<string, { window: number; ms: number }>();

  function entry(projectId: string) {
    const window = Math.floor(now() / windowMs);
    let e = used.get(projectId);
    if (e === undefined || e.window !== window) {
      if (used.size > 10_000) used.clear(); // bounded; a reset only forgives one window
      e = { window, ms: 0 };
      used.set(projectId, e);
    }
    return e;
  }

  return {
    remainingMs: (projectId: string): number => Math.max(0, opts.budgetMs - entry(projectId).ms),
    charge(projectId: string, ms: number): void {
      entry(projectId).ms += ms;
    },
  };
}
