/**
 * How the ad report names and keys its rows (docs/product.md, Ads attribution). Credits (from touchpoints) and
 * ad-spend rows are both resolved to the same ids and names, then grouped by the requested dimensions, so
 * spend joins credits on platform and ids, and on the campaign name where a touchpoint carries no campaign id.
 * Pure: the service loads the rows and the store's ad directory, these functions do the rest.
 */
import {
  AD_DIMENSIONS,
  AD_FILTER_KEYS,
  AD_FILTER_OPERATORS,
  type AdDimension,
  type AdFilter,
  type AdFilterKey,
  MAX_AD_FILTER_VALUES,
} from '../../../contracts/src/ads';
import { badRequest } from '../app/errors';

/** Names and accounts of the store's ads, from its ad-spend rows (the latest row wins). */
export interface AdDirectory {
  /** `platform\0campaign_id` -> name and account. */
  campaigns: ReadonlyMap<string, { name: string; accountId: string }>;
  adSets: ReadonlyMap<string, { name: string; accountId: string }>;
  ads: ReadonlyMap<string, { name: string; accountId: string }>;
  /** `platform\0campaign` (the utm campaign of spend rows) -> the one campaign id it has; absent when ambiguous. */
  campaignIdByName: ReadonlyMap<string, string>;
}

/** A credit or spend row as the touchpoint or the spend row has it. */
export interface RawAdRow {
  channel: string;
  platform: string;
  /** The utm campaign (lower-cased). */
  campaign: string;
  campaignId: string;
  adSetId: string;
  adId: string;
}

/** A row with ids and names resolved. */
export interface ResolvedAdRow {
  channel: string;
  platform: string;
  campaign: string;
  campaignId: string;
  adSet: string;
  adSetId: string;
  ad: string;
  adId: string;
  accountOf: { campaign: string; adSet: string; ad: string };
}

export const dirKey = (platform: string, id: string): string => `${platform}\u0000${id}`;

/** Resolves a row's ids (the campaign id from the campaign name when the touchpoint has none) and names. */
export function resolveAdRow(r: RawAdRow, dir: AdDirectory): ResolvedAdRow {
  const campaignId = r.campaignId || dir.campaignIdByName.get(dirKey(r.platform, r.campaign)) || '';
  const campaign = campaignId ? dir.campaigns.get(dirKey(r.platform, campaignId)) : undefined;
  const adSet = r.adSetId ? dir.adSets.get(dirKey(r.platform, r.adSetId)) : undefined;
  const ad = r.adId ? dir.ads.get(dirKey(r.platform, r.adId)) : undefined;
  return {
    channel: r.channel,
    platform: r.platform,
    campaign: campaign?.name || r.campaign,
    campaignId,
    adSet: adSet?.name ?? '',
    adSetId: r.adSetId,
    ad: ad?.name ?? '',
    adId: r.adId,
    accountOf: { campaign: campaign?.accountId ?? '', adSet: adSet?.accountId ?? '', ad: ad?.accountId ?? '' },
  };
}

/** Validates the dimensions: 1 to 4 distinct, `ad_name` read as `ad`. */
export function validateAdDimensions(dimensions: readonly string[]): AdDimension[] {
  if (dimensions.length < 1 || dimensions.length > 4) throw badRequest('dimensions', 'must have 1 to 4 entries');
  const dims = dimensions.map((d) => {
    const name = d === 'ad_name' ? 'ad' : d;
    if (!(AD_DIMENSIONS as readonly string[]).includes(name)) {
      throw badRequest('dimensions', `"${d}" is not one of ${AD_DIMENSIONS.join(', ')}, ad_name`);
    }
    return name as AdDimension;
  });
  if (new Set(dims).size !== dims.length) throw badRequest('dimensions', 'must not repeat a dimension');
  return dims;
}

export type AdPredicate = (r: ResolvedAdRow) => boolean;

const FIELD_OF: Record<AdFilterKey, (r: ResolvedAdRow) => string> = {
  channel: (r) => r.channel,
  platform: (r) => r.platform,
  campaign: (r) => r.campaign,
  ad_set: (r) => r.adSet,
  ad: (r) => r.ad,
  ad_name: (r) => r.ad,
  campaign_id: (r) => r.campaignId,
  ad_set_id: (r) => r.adSetId,
  ad_id: (r) => r.adId,
};

/** Validates the filters (errors name `filters[i].<field>`) and returns one predicate that all must pass. */
export function validateAdFilters(filters: readonly AdFilter[] | undefined): AdPredicate {
  const tests = (filters ?? []).map((f, i): AdPredicate => {
    if (!(AD_FILTER_KEYS as readonly string[]).includes(f.key)) {
      throw badRequest(`filters[${i}].key`, `"${f.key}" is not one of ${AD_FILTER_KEYS.join(', ')}`);
    }
    if (!(AD_FILTER_OPERATORS as readonly string[]).includes(f.operator)) {
      throw badRequest(`filters[${i}].operator`, `must be eq or in, got "${f.operator}"`);
    }
    const field = FIELD_OF[f.key as AdFilterKey];
    if (f.operator === 'eq') {
      if (typeof f.value !== 'string') throw badRequest(`filters[${i}].value`, 'must be a string with operator eq');
      const v = f.value;
      return (r) => field(r) === v;
    }
    if (!Array.isArray(f.value) || f.value.some((v) => typeof v !== 'string')) {
      throw badRequest(`filters[${i}].value`, 'must be an array of strings with operator in');
    }
    if (f.value.length < 1 || f.value.length > MAX_AD_FILTER_VALUES) {
      throw badRequest(`filters[${i}].value`, `must have 1 to ${MAX_AD_FILTER_VALUES} entries`);
    }
    const set = new Set(f.value);
    return (r) => set.has(field(r));
  });
  return (r) => tests.every((t) => t(r));
}

/** The group key of a resolved row for the requested dimensions: each level by its id and name. */
export function adGroupKey(r: ResolvedAdRow, dims: readonly AdDimension[]): string {
  return dims
    .map((d) => {
      switch (d) {
        case 'channel':
          return r.channel;
        case 'platform':
          return r.platform;
        case 'campaign':
          return `${r.campaignId}\u0001${r.campaign}`;
        case 'ad_set':
          return `${r.adSetId}\u0001${r.adSet}`;
        case 'ad':
          return `${r.adId}\u0001${r.ad}`;
      }
    })
    .join('\u0000');
}

/** The dimension and id fields of a record: requested ones from the row, others `""`. */
export function adRecordDims(
  r: ResolvedAdRow,
  dims: readonly AdDimension[],
): {
  channel: string;
  platform: string;
  campaign: string;
  ad_set: string;
  ad: string;
  account_id: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
} {
  const has = (d: AdDimension): boolean => dims.includes(d);
  // The account of the most specific level requested.
  const account = has('ad')
    ? r.accountOf.ad
    : has('ad_set')
      ? r.accountOf.adSet
      : has('campaign')
        ? r.accountOf.campaign
        : '';
  return {
    channel: has('channel') ? r.channel : '',
    platform: has('platform') ? r.platform : '',
    campaign: has('campaign') ? r.campaign : '',
    ad_set: has('ad_set') ? r.adSet : '',
    ad: has('ad') ? r.ad : '',
    account_id: account,
    campaign_id: has('campaign') ? r.campaignId : '',
    ad_set_id: has('ad_set') ? r.adSetId : '',
    ad_id: has('ad') ? r.adId : '',
  };
}
