/**
 * The credit and spend rollups written from their deltas (rows built by `domain/rollups/`): the four attribution
 * rollups, the ad rollup and the spend rollup. `cleared` when a repair emptied the store's rows first. A batch
 * gathers the same rows of all its stores instead (`pg-batch-rollups.ts`).
 */
import type { Query } from '../../../storage/db';
import { type AdRollupSums, adRollupRows, ATTRIBUTION_BY_AD } from '../domain/rollups/ad';
import { attributionRollupRows, type RollupDelta } from '../domain/rollups/attribution';
import { AD_SPEND_DAILY, spendRows } from '../domain/rollups/spend';
import type { RollupRow, RollupTable } from '../domain/rollups/table';
import { applyCounterDelta, type CounterWriteOptions } from './pg-counter-rollup';

/** Applies a credit delta (keyed by `ROLLUP_KEY`) to the attribution rollups. */
export async function applyAttributionDelta(
  q: Query,
  storeId: string,
  delta: ReadonlyMap<string, RollupDelta>,
  opts: CounterWriteOptions = {},
): Promise<void> {
  await applyTables(q, storeId, attributionRollupRows(delta), opts);
}

type TableRows = Array<{ table: RollupTable; rows: RollupRow[] }>;

/** The ad rollup's rows of a delta (keyed by `AD_ROLLUP_KEY`), as the batch's rollups take them. */
export const adRollupWrites = (delta: ReadonlyMap<string, AdRollupSums>): TableRows => [
  { table: ATTRIBUTION_BY_AD, rows: adRollupRows(delta) },
];

/** The spend rollup's rows of a delta (keyed by `SPEND_KEY`), as the batch's rollups take them. */
export const spendWrites = (delta: ReadonlyMap<string, readonly number[]>): TableRows => [
  { table: AD_SPEND_DAILY, rows: spendRows(delta) },
];

/** Adds a delta (keyed by `AD_ROLLUP_KEY`) to the ad rollup. */
export async function applyAdRollupDelta(
  q: Query,
  storeId: string,
  delta: ReadonlyMap<string, AdRollupSums>,
  opts: CounterWriteOptions = {},
): Promise<void> {
  await applyTables(q, storeId, adRollupWrites(delta), opts);
}

/** Applies one store's rows of each table, in the order given. */
async function applyTables(q: Query, storeId: string, writes: TableRows, opts: CounterWriteOptions): Promise<void> {
  for (const { table, rows } of writes) await applyCounterDelta(q, storeId, table, rows, opts);
}
