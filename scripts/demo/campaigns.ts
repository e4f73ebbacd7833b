/**
 * The paid campaigns and their ads (Google, Meta, TikTok): their utm values, which are also the ones of the ad
 * spend rows, their cost per click, click-through rate, flight and the purchase intent of their visitors. Add a
 * campaign as a row of `CAMPAIGN_TABLE` with its ads in `AD_TABLE`, and its key to the sources of `channels.ts`.
 */
import { tableRows, withParams } from './format';
import type { Window } from './time';

/**
 * Paid campaigns: `key (= utm_campaign) | platform | account | campaign id | name | landing | cpc cents | ctr |
 * flight (fractions of the window) | share of clicks with a click id only | purchase intent (relative)`.
 */
const CAMPAIGN_TABLE = `
brand_search | google | 4815162342 | 20512345671 | Brand - Search | home | 55 | 0.11 | 0-1 | 0.1 | 2
generic_search | google | 4815162342 | 20512345672 | Generic - Apparel | collection | 135 | 0.035 | 0-1 | 0.1 | 0.8
shopping_feed | google | 4815162342 | 20512345673 | Shopping - All Products | product | 85 | 0.015 | 0-1 | 0.1 | 1.3
spring_sale | facebook | act_1029384756 | 120210000000000001 | Spring Sale | sale | 90 | 0.012 | 0.3-0.7 | 0 | 1
prospecting_broad | facebook | act_1029384756 | 120210000000000002 | Prospecting - Broad | product | 75 | 0.009 | 0-1 | 0 | 0.6
retargeting_30d | facebook | act_1029384756 | 120210000000000003 | Retargeting 30d | product | 110 | 0.021 | 0-1 | 0 | 1.8
ugc_creators | tiktok | 7301234567890123456 | 1790123456789012 | UGC Creators | product | 45 | 0.008 | 0-1 | 0.15 | 0.4
`;

/**
 * Their ads: `campaign | ad id | ad name | utm_content | ad set id | ad set name | utm_source | utm_medium |
 * landing collection | utm_term values` (`{brand}` is the store name).
 */
const AD_TABLE = `
brand_search | 690123456701 | RSA - Brand | rsa_brand | 151234567801 | Brand - Exact | google | cpc | | {brand}, {brand} tees, {brand} discount code, {brand} hoodie
generic_search | 690123456711 | RSA - Tees | rsa_tees | 151234567811 | Tees - Phrase | google | cpc | tees | organic cotton t shirt, heavyweight tee, best plain t shirts
generic_search | 690123456712 | RSA - Hoodies | rsa_hoodies | 151234567812 | Hoodies - Phrase | google | cpc | hoodies-sweats | heavyweight hoodie, fleece hoodie men, zip up hoodie
shopping_feed | 690123456721 | Product ads | pla | 151234567821 | All products | google | cpc | |
spring_sale | 120210000000001001 | Tee carousel | tee_carousel | 120210000000000101 | Lookalike 1% - Purchasers | facebook | paid_social | |
spring_sale | 120210000000001002 | Sale video 15s | sale_video_15s | 120210000000000101 | Lookalike 1% - Purchasers | facebook | paid_social | |
spring_sale | 120210000000001003 | Story - Spring drop | story_spring_drop | 120210000000000102 | Instagram Stories | instagram | paid_social | |
prospecting_broad | 120210000000002001 | UGC hoodie review | ugc_hoodie | 120210000000000201 | Broad 18-45 US | facebook | paid_social | |
prospecting_broad | 120210000000002002 | Reels - Outerwear | reels_outerwear | 120210000000000202 | Instagram Reels | instagram | paid_social | |
retargeting_30d | 120210000000003001 | DPA - Viewed products | dpa_viewed | 120210000000000301 | Site visitors 30d | facebook | cpc | |
ugc_creators | 1790123456789101 | Spark - @fitwithmia | spark_fitwithmia | 1790123456789011 | Creators - Spark ads | tiktok | paid_social | |
ugc_creators | 1790123456789102 | Spark - @dailyfits | spark_dailyfits | 1790123456789011 | Creators - Spark ads | tiktok | paid_social | |
`;

export type Platform = 'google' | 'facebook' | 'tiktok';
export type LandingKind = 'home' | 'collection' | 'product' | 'sale';

export interface AdDef {
  index: number;
  id: string;
  name: string;
  /** utm_content. */
  content: string;
  adsetId: string;
  adsetName: string;
  /** utm_source and utm_medium of the ad's links. */
  source: string;
  medium: string;
  /** Collection an ad group is about (generic search). */
  collection?: string;
  terms?: string[];
  campaign: CampaignDef;
  /** `?utm_source=...&utm_content=...` of the ad's links; `&utm_term=...` per keyword. */
  utmQuery: string;
  termParams?: string[];
  /** The ad ids the platform fills into the ad's tracking template (see {@link adIdParams}). */
  adIdParams: string;
}

export interface CampaignDef {
  /** Also the utm_campaign. */
  key: string;
  platform: Platform;
  accountId: string;
  campaignId: string;
  campaignName: string;
  landing: LandingKind;
  /** Cost per click in cents and click-through rate. */
  cpcCents: number;
  ctr: number;
  /** Active part of the window, as fractions of `days`. */
  flight: [number, number];
  /** Share of the clicks that come without utm parameters (click id only). */
  clickIdOnly: number;
  /** Purchase propensity of its visitors, relative. */
  intent: number;
  ads: AdDef[];
}

export function buildCampaigns(storeName: string): CampaignDef[] {
  const brand = storeName.toLowerCase();
  const campaigns = tableRows(CAMPAIGN_TABLE).map((r): CampaignDef => {
    const [key = '', platform, accountId = '', campaignId = '', campaignName = '', landing, cpc, ctr, flight = '0-1'] =
      r;
    const [from = '0', to = '1'] = flight.split('-');
    return {
      key,
      platform: platform as Platform,
      accountId,
      campaignId,
      campaignName,
      landing: landing as LandingKind,
      cpcCents: Number(cpc),
      ctr: Number(ctr),
      flight: [Number(from), Number(to)],
      clickIdOnly: Number(r[9]),
      intent: Number(r[10]),
      ads: [],
    };
  });
  for (const [index, r] of tableRows(AD_TABLE).entries()) {
    const [key, id = '', name = '', content = '', adsetId = '', adsetName = '', source = '', medium = '', coll, terms] =
      r;
    const c = campaigns.find((x) => x.key === key);
    if (!c) throw new Error(`demo: ad ${id} names an unknown campaign ${key}`);
    const termList = terms ? terms.split(',').map((t) => t.trim().replace('{brand}', brand)) : undefined;
    c.ads.push({
      index,
      id,
      name,
      content,
      adsetId,
      adsetName,
      source,
      medium,
      collection: coll === '' ? undefined : coll,
      terms: termList,
      campaign: c,
      utmQuery: withParams([
        ['utm_source', source],
        ['utm_medium', medium],
        ['utm_campaign', c.key],
        ['utm_content', content],
      ]),
      termParams: termList?.map((t) => withParams([['utm_term', t]]).replace('?', '&')),
      adIdParams: adIdParams(c, adsetId, id),
    });
  }
  return campaigns;
}

/**
 * The ad ids of an ad's landing URL, as each platform's dynamic parameters fill them in: Google's ValueTrack
 * (`{campaignid}`, `{adgroupid}`, `{creative}`, plus `utm_id` from auto-tagging), Meta's URL parameters
 * (`utm_id={{campaign.id}}&adset_id={{adset.id}}&ad_id={{ad.id}}`) and TikTok's macros
 * (`campaign_id=__CAMPAIGN_ID__&ad_group_id=__AID__&ad_id=__CID__`).
 */
function adIdParams(c: CampaignDef, adsetId: string, adId: string): string {
  switch (c.platform) {
    case 'google':
      return withParams([
        ['utm_id', c.campaignId],
        ['campaignid', c.campaignId],
        ['adgroupid', adsetId],
        ['creative', adId],
      ]).replace('?', '&');
    case 'facebook':
      return withParams([
        ['utm_id', c.campaignId],
        ['adset_id', adsetId],
        ['ad_id', adId],
      ]).replace('?', '&');
    case 'tiktok':
      return withParams([
        ['campaign_id', c.campaignId],
        ['ad_group_id', adsetId],
        ['ad_id', adId],
      ]).replace('?', '&');
  }
}

/** Whether the campaign runs at `at` (its flight is a part of the window). */
export function isActive(c: CampaignDef, window: Window, at: number): boolean {
  const f = (at - window.startMs) / (window.endMs - window.startMs);
  return f >= c.flight[0] && f < c.flight[1];
}
