/**
 * The ad spend rollup (`ad_spend_daily`, docs/product.md, Ads attribution): the spend rows summed by day,
 * platform and the touchpoint dimensions their campaign maps to. Pure: the batch writer adds each changed spend
 * row's difference; the repair and the reconciliation sum the stored rows in SQL by the same key.
 */
import { compositeKey } from '../composite-key';
import { addValues } from '../credit-sums';
import type { AdSpendFact } from '../facts';
import { bigintColumn, dayAndTextKeys, type RollupRow, type RollupTable, rowsOfDelta } from './table';

/** The spend rollup's key, in the order of ad_spend_daily's key columns. */
export const SPEND_KEY = compositeKey(['day', 'platform', 'channel', 'source', 'medium', 'campaign']);

export const AD_SPEND_DAILY: RollupTable = {
  table: 'ad_spend_daily',
  keys: dayAndTextKeys(SPEND_KEY.columns),
  values: ['spend_micros', 'impressions', 'clicks', 'conv_value_micros'].map(bigintColumn),
};

/** Adds `sign` times a spend row to its group's sums, in the order of ad_spend_daily's value columns. */
export function accumulateSpend(into: Map<string, number[]>, f: AdSpendFact, sign: 1 | -1): void {
  addValues(into, SPEND_KEY.of(f), [f.spendMicros, f.impressions, f.clicks, f.convValueMicros], sign);
}

/** The rollup's change from spend rows written over the rows they replace (`previous`, or none). */
export function spendDeltaOf(
  changes: Iterable<{ fact: AdSpendFact; previous: AdSpendFact | null }>,
): Map<string, number[]> {
  const delta = new Map<string, number[]>();
  for (const s of changes) {
    if (s.previous) accumulateSpend(delta, s.previous, -1);
    accumulateSpend(delta, s.fact, 1);
  }
  return delta;
}

/** A delta's rows of `ad_spend_daily`. */
export const spendRows = (delta: ReadonlyMap<string, readonly number[]>): RollupRow[] =>
  rowsOfDelta(AD_SPEND_DAILY, delta);
