/**
 * The ad rollup's key and deltas (docs/product.md, Ads attribution): the credits of paid touchpoints (platform
 * not "") summed by day, goal, channel, platform, campaign and the three ad ids, each model's sums in columns of
 * their own. Pure: the incremental maintainer, the repair and the reconciliation all derive it from credits with
 * these functions.
 */
import { compositeKey } from '../composite-key';
import { addSums, type CreditSums } from '../credit-sums';
import { groupsOf, MODEL_SUM_COLUMNS, modelValuesOf } from './attribution';
import { dayAndTextKeys, type RollupRow, rowsOfDelta, type RollupTable } from './table';

/**
 * A paid credit delta's key: its model and dimensions. attribution_by_ad is keyed by the dimensions alone, in this
 * order, and holds the models side by side (docs/decisions.md, Storage, "The models side by side").
 */
export const AD_ROLLUP_KEY = compositeKey([
  'day',
  'goal',
  'model',
  'channel',
  'platform',
  'campaign',
  'campaignId',
  'adSetId',
  'adId',
]);

/** What a credit brings to the ad rollup. */
export interface AdCreditLike {
  day: string;
  goal: string;
  model: string;
  channel: string;
  platform: string;
  campaign: string;
  campaignId: string;
  adSetId: string;
  adId: string;
  weight: number;
  newWeight: number;
  valueMicros: number;
  cogsMicros: number;
}

/** Integer sums of one ad rollup group. */
export type AdRollupSums = CreditSums;

/** Only paid touchpoints are in the ad rollup. */
export const isPaidCredit = (c: Pick<AdCreditLike, 'platform'>): boolean => c.platform !== '';

/** Adds `sign` times the paid credits into `into` (exact integer arithmetic; unpaid credits are skipped). */
export function accumulateAdCredits(
  into: Map<string, AdRollupSums>,
  credits: Iterable<AdCreditLike>,
  sign: 1 | -1,
): void {
  for (const c of credits) if (isPaidCredit(c)) addSums(into, AD_ROLLUP_KEY.of(c), c, sign);
}

/** Adds one delta map into another. */
export function mergeAdDeltas(into: Map<string, AdRollupSums>, from: ReadonlyMap<string, AdRollupSums>): void {
  for (const [k, d] of from) addSums(into, k, d);
}

export const ATTRIBUTION_BY_AD: RollupTable = {
  table: 'attribution_by_ad',
  keys: dayAndTextKeys(AD_ROLLUP_KEY.columns.filter((c) => c !== 'model')),
  values: MODEL_SUM_COLUMNS,
};

/** A delta (keyed by `AD_ROLLUP_KEY`) as attribution_by_ad's values, keyed by its key: each model at its columns. */
export const adRollupValues = (delta: ReadonlyMap<string, AdRollupSums>): Map<string, number[]> =>
  modelValuesOf(ATTRIBUTION_BY_AD, groupsOf(delta, AD_ROLLUP_KEY, ATTRIBUTION_BY_AD.table));

/** A delta's rows of `attribution_by_ad`. */
export const adRollupRows = (delta: ReadonlyMap<string, AdRollupSums>): RollupRow[] =>
  rowsOfDelta(ATTRIBUTION_BY_AD, adRollupValues(delta));
