/**
 * The one comparison of a rollup with its expectation, for every rollup the reconciliation checks: rows read
 * back by the names of the table's columns, keyed as the expectation is (`keyOfTable`), values compared column
 * by column. A group expected but absent, present but not expected, or with other sums is a row of drift.
 */
import { keyOfTable, namedValues, type RollupTable } from '../../domain/rollups/table';
import type { DriftRow, ReportDrift } from './types';

export interface RollupComparison {
  view: DriftRow['view'];
  /** The table's key and summed columns, as `rows` name them. */
  table: RollupTable;
  /** The recomputation's sums by `keyOfTable(table)` key (all-zero groups are not stored, so not expected). */
  expected: ReadonlyMap<string, readonly number[]>;
  /** The stored rows, each with the table's columns by name. */
  rows: ReadonlyArray<Record<string, unknown>>;
  /** Only groups whose key this accepts are compared (both sides); all when absent. */
  inScope?: (key: string) => boolean;
}

export function compareRollup(c: RollupComparison, report: ReportDrift): void {
  const key = keyOfTable(c.table);
  const inScope = c.inScope ?? (() => true);
  const want = new Map<string, readonly number[]>();
  for (const [k, v] of c.expected) if (v.some((x) => x !== 0) && inScope(k)) want.set(k, v);
  const show = (values: readonly number[] | undefined) => (values ? namedValues(c.table, values) : null);
  for (const r of c.rows) {
    const k = key.ofColumns(r);
    if (!inScope(k)) continue;
    const actual = c.table.values.map((col) => Number(r[col.name]));
    const exp = want.get(k);
    if (!exp || exp.some((x, i) => x !== actual[i]))
      report({ view: c.view, key: key.display(k), expected: show(exp), actual: show(actual) });
    want.delete(k);
  }
  for (const [k, exp] of want) report({ view: c.view, key: key.display(k), expected: show(exp), actual: null });
}
