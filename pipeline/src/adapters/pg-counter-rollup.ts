/**
 * Applying a delta to a counter rollup: a table keyed by (store_id, dimensions) whose value columns are sums
 * (attribution, ads, spend and analytics rollups alike). One statement adds the delta and names the groups it
 * brought back to zero; those are deleted, as a recomputation would not have them. Every rollup of the batch
 * goes through here, so the arithmetic and the lock order live in one place.
 */
import type { Query } from '../../../storage/db';
import { copyData, copyLine } from '../../../storage/pg-copy-text';
import { keyCellsOfRow, type Column, type RollupRow, type RollupTable } from '../domain/rollups/table';

/** A column as selected: days as YYYY-MM-DD, and PostgreSQL's `-infinity`/`infinity` as such. */
export const selectedAs = (c: { name: string; type: string }, alias = ''): string => {
  const col = `${alias}${c.name}`;
  return c.type === 'date'
    ? `case when isfinite(${col}) then to_char(${col}, 'YYYY-MM-DD') else ${col}::text end as ${c.name}`
    : `${col} as ${c.name}`;
};

const STORE_COLUMN: Column = { name: 'store_id', type: 'text' };

const unnestOf = (cols: readonly Column[], first: number): string =>
  `unnest(${cols.map((c, i) => `$${first + i}::${c.type}[]`).join(', ')}) as t(${cols.map((c) => c.name).join(', ')})`;

const keyText = (t: RollupTable, row: RollupRow): string => keyCellsOfRow(t, row).join('\u0000');

/** How a delta meets the table: `cleared` when the store has no rows there (a repair emptied it first). */
export interface CounterWriteOptions {
  cleared?: boolean;
}

/** One store's rows for a rollup table. */
export interface StoreRollupRows {
  storeId: string;
  rows: readonly RollupRow[];
}

/**
 * Adds `rows` (named by `shape`'s columns) to `shape.table` for `storeId`. Into a `cleared` table the rows are
 * copied instead: there is nothing to add them to, and COPY costs about half of the upsert.
 */
export async function applyCounterDelta(
  q: Query,
  storeId: string,
  shape: RollupTable,
  rows: readonly RollupRow[],
  opts: CounterWriteOptions = {},
): Promise<void> {
  if (opts.cleared) {
    const entries = inKeyOrder(shape, rows);
    if (entries.length) await copyCounterRows(q, storeId, shape, entries);
    return;
  }
  await applyCounterDeltas(q, shape, [{ storeId, rows }]);
}

/** The rows with a value other than zero, in key order. */
function inKeyOrder(shape: RollupTable, rows: readonly RollupRow[]): RollupRow[] {
  return rows
    .filter((r) => shape.values.some((c) => r[c.name] !== 0))
    .map((r) => ({ row: r, sortKey: keyText(shape, r) }))
    .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0))
    .map((e) => e.row);
}

/**
 * Adds the rows of several stores to `shape.table` in one statement. Rows whose values are all zero are skipped;
 * the rest are applied in (store, key) order, so concurrent workers lock rollup rows in one order. One statement
 * for all the stores of a batch, because a batch of many small stores otherwise pays a statement per store and
 * table (docs/decisions.md, Storage, "A batch's stores written together").
 */
export async function applyCounterDeltas(
  q: Query,
  shape: RollupTable,
  parts: readonly StoreRollupRows[],
): Promise<void> {
  const stores: string[] = [];
  const entries: RollupRow[] = [];
  for (const part of [...parts].sort((a, b) => (a.storeId < b.storeId ? -1 : a.storeId > b.storeId ? 1 : 0))) {
    for (const row of inKeyOrder(shape, part.rows)) {
      stores.push(part.storeId);
      entries.push(row);
    }
  }
  if (entries.length === 0) return;
  const cols = [...shape.keys, ...shape.values];
  const args: unknown[] = [stores, ...cols.map((c) => entries.map((r) => r[c.name]))];
  const keyNames = shape.keys.map((c) => c.name);
  const zero = await q<Record<string, string | number>>(
    `views.${shape.table}_upsert`,
    `with up as (
       insert into ${shape.table} as a (store_id, ${cols.map((c) => c.name).join(', ')})
       select t.store_id, ${cols.map((c) => `t.${c.name}`).join(', ')} from ${unnestOf([STORE_COLUMN, ...cols], 1)}
       on conflict (store_id, ${keyNames.join(', ')}) do update set
         ${shape.values.map((c) => `${c.name} = a.${c.name} + excluded.${c.name}`).join(', ')}
       returning store_id, ${cols.map((c) => c.name).join(', ')}
     )
     select store_id, ${shape.keys.map((c) => selectedAs(c)).join(', ')} from up
     where ${shape.values.map((c) => `${c.name} = 0`).join(' and ')}`,
    args,
  );
  if (zero.length === 0) return;
  // The upsert holds these rows' locks until commit, so they are still zero here.
  await q(
    `views.${shape.table}_prune`,
    `delete from ${shape.table} a using ${unnestOf([STORE_COLUMN, ...shape.keys], 1)}
     where a.store_id = t.store_id and ${keyNames.map((n) => `a.${n} = t.${n}`).join(' and ')}`,
    [zero.map((z) => z.store_id), ...shape.keys.map((c) => zero.map((z) => z[c.name]))],
  );
}

/** Copies rows (in key order, which keeps the index inserts local) into a table where the store has none. */
async function copyCounterRows(
  q: Query,
  storeId: string,
  shape: RollupTable,
  rows: readonly RollupRow[],
): Promise<void> {
  const cols = [...shape.keys, ...shape.values].map((c) => c.name);
  await q.copyFrom(
    `views.${shape.table}_copy`,
    `copy ${shape.table} (store_id, ${cols.join(', ')}) from stdin`,
    copyData(rows.map((r) => copyLine([storeId, ...cols.map((c) => r[c]!)]))),
  );
}
