/**
 * Default channel group and ad platform of a touchpoint (docs/product.md, Sessions and touchpoints).
 *
 * Channel rules: the GA4 default channel group, evaluated top-down, first match wins, case-insensitive,
 * with the regexes of GA4's default channel group (Google's support.google.com/analytics/answer/9756891
 * as restated there; order per ga4audits.com). Where copies of Google's page differ we take the wider
 * variant: the paid-medium pattern includes `retargeting`, and Mobile Push also matches source `firebase`.
 *
 * Source lists (`channel-sources.json`, `sourceCategories`): a curated subset of Google's published GA4
 * source-category list (the spreadsheet linked from the page above, categories SOURCE_CATEGORY_SEARCH,
 * _SOCIAL, _SHOPPING, _VIDEO), keeping Google's classification (e.g. `tiktok` is social, `youtube` is
 * video, `blogspot`/`bit.ly` are social, `checkout.shopify.com` is shopping). Additions that Google's list
 * lacks but that real traffic uses: search `ask.com`, `baidu.com`, `bing.com`, `brave`,
 * `search.brave.com`, `duckduckgo.com`, `ecosia`, `search.naver.com`, `search.yahoo.com`,
 * `search.yahoo.co.jp`, `startpage`, `startpage.com`, `ya.ru`; social `meta`, `x`, `x.com`,
 * `mobile.twitter.com`, `threads`, `threads.net`, `threads.com`, `bluesky`, `bsky.app`, `pin.it`,
 * `telegram`, `discord`, `discord.com`; shopping `shopping.google.com`; video `youtu.be`. Every name the
 * referrer classifier emits (`google`, `facebook`, `twitter`, ...) is in the matching list.
 */
import type { Channel, Platform } from '../../../contracts/src/channels';
import channelSources from './channel-sources.json';
import { lookupNetwork } from './referrer';

export interface ChannelInput {
  source: string;
  medium: string;
  campaign: string;
}

export interface PlatformInput {
  source: string;
  medium: string;
  channel: Channel;
  /** Name of the click-id parameter found on the landing URL (`gclid`, `fbclid`, ...), else `""`. */
  clickIdParam: string;
}

type SourceCategory = 'search' | 'social' | 'shopping' | 'video';

const CATEGORY_LISTS: Readonly<Record<SourceCategory, readonly string[]>> = channelSources.sourceCategories;

const CATEGORIES: Readonly<Record<SourceCategory, ReadonlySet<string>>> = {
  search: toSet(CATEGORY_LISTS.search),
  social: toSet(CATEGORY_LISTS.social),
  shopping: toSet(CATEGORY_LISTS.shopping),
  video: toSet(CATEGORY_LISTS.video),
};

function toSet(values: readonly string[]): ReadonlySet<string> {
  return new Set(values.map((v) => v.trim().toLowerCase()));
}

/** GA4 paid-medium pattern P. */
export const PAID_MEDIUM = /^(.*cp.*|ppc|retargeting|paid.*)$/i;
/** GA4 shopping-campaign pattern. */
export const SHOP_CAMPAIGN = /^(.*(([^a-df-z]|^)shop|shopping).*)$/i;

const DISPLAY_MEDIUMS: ReadonlySet<string> = new Set(['display', 'banner', 'expandable', 'interstitial', 'cpm']);
const SOCIAL_MEDIUMS: ReadonlySet<string> = new Set([
  'social',
  'social-network',
  'social-media',
  'sm',
  'social network',
  'social media',
]);
const REFERRAL_MEDIUMS: ReadonlySet<string> = new Set(['referral', 'app', 'link']);
const EMAIL_VALUES: ReadonlySet<string> = new Set(['email', 'e-mail', 'e_mail', 'e mail']);

/** Whether `source` is in one of Google's source categories (exact, case-insensitive). */
export function isSourceInCategory(source: string, category: SourceCategory): boolean {
  return CATEGORIES[category].has(source.trim().toLowerCase());
}

/** The GA4 default channel group of a (source, medium, campaign), as a slug. */
export function classifyChannel(input: ChannelInput): Channel {
  const source = input.source.trim().toLowerCase();
  const medium = input.medium.trim().toLowerCase();
  const campaign = input.campaign.trim().toLowerCase();
  const paid = PAID_MEDIUM.test(medium);
  const shoppingSource = CATEGORIES.shopping.has(source);
  const shopCampaign = SHOP_CAMPAIGN.test(campaign);
  const searchSource = CATEGORIES.search.has(source);
  const socialSource = CATEGORIES.social.has(source);
  const videoSource = CATEGORIES.video.has(source);

  if (source === '(direct)' && (medium === '(none)' || medium === '(not set)')) return 'direct';
  if (campaign.includes('cross-network')) return 'cross_network';
  if ((shoppingSource || shopCampaign) && paid) return 'paid_shopping';
  if (searchSource && paid) return 'paid_search';
  if (socialSource && paid) return 'paid_social';
  if (videoSource && paid) return 'paid_video';
  if (DISPLAY_MEDIUMS.has(medium)) return 'display';
  if (paid) return 'paid_other';
  if (shoppingSource || shopCampaign) return 'organic_shopping';
  if (socialSource || SOCIAL_MEDIUMS.has(medium)) return 'organic_social';
  if (videoSource || medium.includes('video')) return 'organic_video';
  if (searchSource || medium === 'organic') return 'organic_search';
  if (REFERRAL_MEDIUMS.has(medium)) return 'referral';
  if (EMAIL_VALUES.has(source) || EMAIL_VALUES.has(medium)) return 'email';
  if (medium === 'affiliate') return 'affiliates';
  if (medium === 'audio') return 'audio';
  if (source === 'sms' || medium === 'sms') return 'sms';
  if (
    medium.endsWith('push') ||
    medium.includes('mobile') ||
    medium.includes('notification') ||
    source === 'firebase'
  ) {
    return 'mobile_push';
  }
  return 'unassigned';
}

/** Channels that are paid by definition; with a paid medium (pattern P) they make a touch "paid" (docs/product.md, Sessions and touchpoints). */
const PAID_CHANNELS: ReadonlySet<Channel> = new Set<Channel>([
  'cross_network',
  'paid_shopping',
  'paid_search',
  'paid_social',
  'paid_video',
  'display',
  'paid_other',
]);

/** Click-id parameter (lower-case) → ad network (docs/product.md, Sessions and touchpoints step 3). */
const CLICK_ID_PLATFORMS: Readonly<Record<string, Exclude<Platform, ''>>> = {
  gclid: 'google',
  gbraid: 'google',
  wbraid: 'google',
  msclkid: 'bing',
  ttclid: 'tiktok',
  li_fat_id: 'linkedin',
  twclid: 'twitter',
  epik: 'pinterest',
  sccid: 'snapchat',
  fbclid: 'facebook',
};

/**
 * Source value (lower-case) → ad network, for paid touches without a click id. Includes the values Meta's
 * `{{site_source_name}}` URL macro produces (`fb`, `ig`, `msg`, `an`) and common spellings of the ad
 * products. Network names produced by the referrer tables (`instagram`, `youtube`, ...) are covered too,
 * and a source that is a host name (`m.facebook.com`) is mapped through those tables.
 */
const SOURCE_PLATFORMS: Readonly<Record<string, Exclude<Platform, ''>>> = {
  google: 'google',
  adwords: 'google',
  googleads: 'google',
  google_ads: 'google',
  'google ads': 'google',
  'google shopping': 'google',
  youtube: 'google',
  facebook: 'facebook',
  fb: 'facebook',
  instagram: 'facebook',
  ig: 'facebook',
  meta: 'facebook',
  messenger: 'facebook',
  msg: 'facebook',
  an: 'facebook',
  tiktok: 'tiktok',
  bing: 'bing',
  microsoft: 'bing',
  microsoftads: 'bing',
  'microsoft ads': 'bing',
  pinterest: 'pinterest',
  snapchat: 'snapchat',
  snap: 'snapchat',
  linkedin: 'linkedin',
  twitter: 'twitter',
  x: 'twitter',
};

function platformOfSource(source: string): Platform {
  const s = source.trim().toLowerCase();
  const direct = SOURCE_PLATFORMS[s];
  if (direct !== undefined) return direct;
  if (!s.includes('.')) return '';
  const network = lookupNetwork(s);
  return network === undefined ? '' : (SOURCE_PLATFORMS[network.name] ?? '');
}

/** The ad network (docs/product.md, Sessions and touchpoints) of a click-id parameter name (`gclid` → google, `ScCid` → snapchat), else `""`. */
export function platformOfClickId(clickIdParam: string): Platform {
  return CLICK_ID_PLATFORMS[clickIdParam.trim().toLowerCase()] ?? '';
}

/**
 * The ad network of a touch (docs/product.md, Sessions and touchpoints): only when the touch is paid (a paid channel, or a medium matching
 * the paid pattern) or carries a click id. The click id decides first, then the source; a paid touch from
 * an unknown network (e.g. `criteo`/`cpc`) and every unpaid touch without a click id give `""`.
 */
export function inferPlatform(input: PlatformInput): Platform {
  const hasClickId = input.clickIdParam.trim() !== '';
  const paid = PAID_CHANNELS.has(input.channel) || PAID_MEDIUM.test(input.medium.trim());
  if (!paid && !hasClickId) return '';
  const fromClickId = hasClickId ? platformOfClickId(input.clickIdParam) : '';
  return fromClickId !== '' ? fromClickId : platformOfSource(input.source);
}
