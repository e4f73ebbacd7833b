/**
 * The one description of a rollup table that the batch writer, the reconciliation and the repair all read:
 * its name, its key columns (with `store_id`, a unique key) and its summed columns. A row of a table is a named
 * record of those columns; the pure modules beside this one build the rows from deltas, the adapters only turn
 * them into statements.
 */
import { CREDIT_SUMS } from '../../../../contracts/src/attribution';
import { compositeKey, type CompositeKey } from '../composite-key';
import type { CreditSums } from '../credit-sums';

export type ColumnType = 'date' | 'text' | 'smallint' | 'integer' | 'bigint';

export interface Column {
  name: string;
  type: ColumnType;
}

export interface RollupTable {
  table: string;
  /** Dimension columns (with store_id, a unique key of the table). */
  keys: readonly Column[];
  /** Summed columns. */
  values: readonly Column[];
}

/** A cell as the statements take it: days as YYYY-MM-DD, texts, integers. */
export type Cell = string | number;

/** One group of a rollup (or its change): its cells by column name. */
export type RollupRow = Readonly<Record<string, Cell>>;

export const textColumn = (name: string): Column => ({ name, type: 'text' });
export const dateColumn = (name: string): Column => ({ name, type: 'date' });
export const bigintColumn = (name: string): Column => ({ name, type: 'bigint' });
export const integerColumn = (name: string): Column => ({ name, type: 'integer' });

/** Key columns named in order, `day` a date and the others text (the shape of most rollup keys). */
export const dayAndTextKeys = (names: readonly string[]): Column[] =>
  names.map((name) => (name === 'day' ? dateColumn(name) : textColumn(name)));

/** A credit's four summed columns, as `conversion_credits` names them, in the order of `creditSumValues`. */
export const CREDIT_SUM_COLUMNS: readonly Column[] = CREDIT_SUMS.map(bigintColumn);

export const creditSumValues = (d: CreditSums): number[] => [d.weight, d.newWeight, d.valueMicros, d.cogsMicros];

/** The text key of a table's rows (its key columns, in order): how deltas and expectations are keyed. */
export const keyOfTable = (t: RollupTable): CompositeKey<string> => compositeKey(t.keys.map((c) => c.name));

/**
 * A row of `t` from its key cells and summed values, each in column order (how a delta keyed by `keyOfTable`
 * holds them). The one place where cells meet their names; a count that does not match the table throws.
 */
export function rowOf(t: RollupTable, keyCells: readonly Cell[], values: readonly number[]): RollupRow {
  if (keyCells.length !== t.keys.length || values.length !== t.values.length)
    throw new Error(
      `${t.table}: a row has ${t.keys.length} key and ${t.values.length} value cells, got ${keyCells.length} and ${values.length}`,
    );
  const row: Record<string, Cell> = {};
  t.keys.forEach((c, i) => (row[c.name] = keyCells[i]!));
  t.values.forEach((c, i) => (row[c.name] = values[i]!));
  return row;
}

/** A delta's rows for `t`, keyed as `keyOfTable(t)` keys them; groups whose values are all zero are left out. */
export function rowsOfDelta(t: RollupTable, delta: ReadonlyMap<string, readonly number[]>): RollupRow[] {
  const key = keyOfTable(t);
  const rows: RollupRow[] = [];
  for (const [k, values] of delta) if (values.some((v) => v !== 0)) rows.push(rowOf(t, key.parts(k), values));
  return rows;
}

/** The summed values of a row, in column order. */
export const valuesOfRow = (t: RollupTable, row: RollupRow): number[] => t.values.map((c) => Number(row[c.name]));

/** The key cells of a row, in column order. */
export const keyCellsOfRow = (t: RollupTable, row: RollupRow): Cell[] => t.keys.map((c) => row[c.name]!);

/** A summed column's name as drift reports show it: `new_weight` -> `newWeight`. */
export const fieldOfColumn = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Named values (by `fieldOfColumn`), as a drift report shows a group's sums. */
export function namedValues(t: RollupTable, values: readonly number[]): Record<string, number> {
  return Object.fromEntries(t.values.map((c, i) => [fieldOfColumn(c.name), values[i]!]));
}
