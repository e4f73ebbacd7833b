/**
 * The ad rollup's key and deltas (docs/product.md, Ads attribution): the credits of paid touchpoints (platform
 * not "") summed by day, goal, model, channel, platform, campaign and the three ad ids. Pure: the incremental
 * maintainer, the repair and the reconciliation all derive it from credits with these functions.
 */
import { addSums, type CreditSums } from './credit-sums';

/** The columns of the ad rollup's key after store_id, in the order of {@link adRollupKey}. */
export const AD_ROLLUP_DIMS = [
  'day',
  'goal',
  'model',
  'channel',
  'platform',
  'campaign',
  'campaign_id',
  'ad_set_id',
  'ad_id',
] as const;

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

/** The ad rollup key of a credit, as one string (NUL-separated, in {@link AD_ROLLUP_DIMS} order). */
export function adRollupKey(
  c: Pick<
    AdCreditLike,
    'day' | 'goal' | 'model' | 'channel' | 'platform' | 'campaign' | 'campaignId' | 'adSetId' | 'adId'
  >,
): string {
  return [c.day, c.goal, c.model, c.channel, c.platform, c.campaign, c.campaignId, c.adSetId, c.adId].join('\u0000');
}

/** Adds `sign` times the paid credits into `into` (exact integer arithmetic; unpaid credits are skipped). */
export function accumulateAdCredits(
  into: Map<string, AdRollupSums>,
  credits: Iterable<AdCreditLike>,
  sign: 1 | -1,
): void {
  for (const c of credits) if (isPaidCredit(c)) addSums(into, adRollupKey(c), c, sign);
}

/** Adds one delta map into another. */
export function mergeAdDeltas(into: Map<string, AdRollupSums>, from: ReadonlyMap<string, AdRollupSums>): void {
  for (const [k, d] of from) addSums(into, k, d);
}
