/**
 * The ad rollup's key and deltas (docs/product.md, Ads attribution): the credits of paid touchpoints (platform
 * not "") summed by day, goal, model, channel, platform, campaign and the three ad ids. Pure: the incremental
 * maintainer, the repair and the reconciliation all derive it from credits with these functions.
 */
import { compositeKey } from '../composite-key';
import { addSums, type CreditSums } from '../credit-sums';
import { CREDIT_SUM_COLUMNS, creditSumValues, dayAndTextKeys, type RollupRow, type RollupTable, rowOf } from './table';

/** The ad rollup's key: a paid credit's dimensions, in the order of attribution_by_ad's key columns. */
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
  keys: dayAndTextKeys(AD_ROLLUP_KEY.columns),
  values: CREDIT_SUM_COLUMNS,
};

/** A delta's rows of `attribution_by_ad`. */
export const adRollupRows = (delta: ReadonlyMap<string, AdRollupSums>): RollupRow[] =>
  [...delta].map(([k, d]) => rowOf(ATTRIBUTION_BY_AD, AD_ROLLUP_KEY.parts(k), creditSumValues(d)));
