/** Links from an experiment's figures to the runs behind them (the runs list, narrowed to the experiment's variants). */
export function runsOf(experimentId: string, variants: readonly string[], extra: Record<string, string> = {}): string {
  const p = new URLSearchParams({ experiment: experimentId });
  for (const v of variants) p.append("variant", v);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return `/runs?${p.toString()}`;
}

/** An experiment's page: its id in the query string, so any id (dots, spaces) makes a link. */
export function experimentPath(id: string): string {
  return `/experiments?${new URLSearchParams({ id }).toString()}`;
}
