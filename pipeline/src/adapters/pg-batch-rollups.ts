/**
 * The rollup rows of a batch, gathered from all its stores and written at its end: the touch groups they name in
 * one statement, then one statement per rollup table for every store. A batch of ten small stores otherwise paid
 * ten statements per table, and the rollups were a third of its time (docs/decisions.md, Storage, "A batch's
 * stores written together").
 *
 * Lock order: tables in the order they were first added (every store adds the families in the same order, and
 * each family always names all its tables), then stores, then keys; so two batches in flight lock rollup rows in
 * one order, as they did store by store.
 */
import type { Query } from '../../../storage/db';
import type { RollupRow, RollupTable } from '../domain/rollups/table';
import { applyCounterDeltas, type StoreRollupRows } from './pg-counter-rollup';
import { recordTouchGroups, type StoreTouchGroups } from './pg-analytics';

export class BatchRollups {
  private readonly tables = new Map<string, { table: RollupTable; parts: StoreRollupRows[]; stores: Set<string> }>();
  private readonly groups: StoreTouchGroups[] = [];

  /**
   * Queues one store's rows of each table; once per store and table, since one upsert statement cannot change a
   * row twice (two deltas of a store must be summed before).
   */
  add(storeId: string, writes: Iterable<{ table: RollupTable; rows: readonly RollupRow[] }>): void {
    for (const { table, rows } of writes) {
      let entry = this.tables.get(table.table);
      if (!entry) {
        entry = { table, parts: [], stores: new Set() };
        this.tables.set(table.table, entry);
      }
      if (entry.stores.has(storeId))
        throw new Error(`${table.table}: rows of store ${storeId} queued twice in a batch`);
      entry.stores.add(storeId);
      if (rows.length) entry.parts.push({ storeId, rows });
    }
  }

  /** Queues touch groups the rows name, recorded before any rollup row is written. */
  addTouchGroups(storeId: string, groups: ReadonlyMap<string, readonly string[]>): void {
    if (groups.size) this.groups.push({ storeId, groups });
  }

  async write(q: Query): Promise<void> {
    await recordTouchGroups(q, this.groups);
    for (const { table, parts } of this.tables.values()) await applyCounterDeltas(q, table, parts);
  }
}
