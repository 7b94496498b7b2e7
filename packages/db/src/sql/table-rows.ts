/**
 * A table's whole row read by a fixed statement (queryRows) instead of a
 * drizzle select: the same columns in the same order, named as the client's
 * snake_case casing names them, and decoded by each column's own
 * mapFromDriverValue, so the row is the one `db.select().from(table)` returns.
 * Building a select through drizzle costs more CPU than running it.
 */
import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";

export interface TableRowReader<T extends Table> {
  /** The columns for a select list, qualified by `alias` (`t.project_id, t.trace_id, ...`). */
  selectList(alias: string): string;
  /** How many values a row takes in the result. */
  readonly width: number;
  /** The row from `values[offset]` onwards, as drizzle maps it. */
  decode(values: readonly unknown[], offset?: number): InferSelectModel<T>;
}

export function tableRowReader<T extends Table>(table: T): TableRowReader<T> {
  const columns = Object.entries(getTableColumns(table));
  // As drizzle's CasingCache with casing "snake_case": a column named by its key takes the key in snake_case.
  const names = columns.map(([, column]) => (column.keyAsName ? toSnakeCase(column.name) : column.name));
  return {
    selectList: (alias) => names.map((name) => `${alias}.${name}`).join(", "),
    width: columns.length,
    decode(values, offset = 0) {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) {
        const [key, column] = columns[i]!;
        const value = values[offset + i];
        row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
      }
      return row as InferSelectModel<T>;
    },
  };
}
