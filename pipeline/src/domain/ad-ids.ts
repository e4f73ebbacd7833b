/**
 * Ad ids a landing URL carries (docs/product.md, Ads attribution): the ad platforms fill them into the ad's
 * tracking template (Meta's `{{campaign.id}}`, Google's ValueTrack `{campaignid}`, TikTok's `__CAMPAIGN_ID__`),
 * so a touchpoint can be credited to a campaign, an ad set and an ad, not only to a campaign name.
 */
import { getParam } from './url-params';

/** Parameters of each id, in order of precedence: the first one present wins. */
export const CAMPAIGN_ID_PARAMS = ['utm_id', 'campaign_id', 'campaignid', 'dm_cam'] as const;
export const AD_SET_ID_PARAMS = ['adset_id', 'ad_group_id', 'adgroupid', 'dm_grp'] as const;
export const AD_ID_PARAMS = ['ad_id', 'creative', 'dm_ad'] as const;

/**
 * Ids are cut at this length, the same way in every recomputation. Platform ids are 10 to 20 digits; the bound
 * keeps the ad rollup's key (campaign name and three ids) within what a PostgreSQL index entry holds.
 */
export const MAX_AD_ID_CHARS = 128;

export interface AdIds {
  campaignId: string;
  adSetId: string;
  adId: string;
}

/**
 * A placeholder the platform did not fill in (a preview, a template pasted by hand): `{campaignid}`,
 * `{{ad.id}}`, `__CID__`. It names no ad, so it counts as absent.
 */
function isUnfilledPlaceholder(value: string): boolean {
  return /^\{+[^{}]*\}+$/.test(value) || /^__[A-Z0-9_]+__$/.test(value);
}

function cut(value: string): string {
  if (value.length <= MAX_AD_ID_CHARS) return value;
  // Never cut a surrogate pair in two (the API refuses lone surrogates; stored values must not hold one).
  const high = /[\ud800-\udbff]/.test(value[MAX_AD_ID_CHARS - 1]!);
  return value.slice(0, high ? MAX_AD_ID_CHARS - 1 : MAX_AD_ID_CHARS);
}

function firstId(params: ReadonlyMap<string, string>, names: readonly string[]): string {
  for (const name of names) {
    const value = getParam(params, name);
    if (value !== undefined && !isUnfilledPlaceholder(value)) return cut(value);
  }
  return '';
}

/**
 * The ad ids of a landing URL's query parameters; `""` for an id that is absent. Ids keep their case and are cut
 * at {@link MAX_AD_ID_CHARS}.
 */
export function adIdsOf(params: ReadonlyMap<string, string>): AdIds {
  return {
    campaignId: firstId(params, CAMPAIGN_ID_PARAMS),
    adSetId: firstId(params, AD_SET_ID_PARAMS),
    adId: firstId(params, AD_ID_PARAMS),
  };
}
