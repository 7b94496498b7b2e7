import { bigint, index, pgTable, type PgColumnBuilderBase } from "drizzle-orm/pg-core";

/**
 * The append-only delta table of an hourly rollup (rollups.ts): the rollup's columns, no unique
 * key, an identity id. The fold of pending traces, a re-score of a folded trace (its old cells,
 * negated) and a judge verdict on a folded trace append cells here instead of upserting the cells
 * every trace of the hour shares, so concurrent writers never wait on one another's row locks;
 * compactScoreRollups folds the rows into the rollup, and readers add what is not folded yet.
 */
export function rollupDeltaTable<C extends { projectId: PgColumnBuilderBase; hourNs: PgColumnBuilderBase } & Record<string, PgColumnBuilderBase>>(
  name: string,
  columns: () => C,
) {
  return pgTable(name, { id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(), ...columns() }, (t) => [
    index(`${name}_cell_idx`).on(t.projectId, t.hourNs),
  ]);
}
