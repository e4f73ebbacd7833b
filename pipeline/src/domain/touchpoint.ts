/**
 * A session's marketing touchpoint from its landing URL and referrer (docs/product.md, Sessions and touchpoints), plus the "new source"
 * test the sessionizer uses to split sessions.
 */
import { adIdsOf } from './ad-ids';
import { classifyChannel, inferPlatform } from './channel';
import { classifyReferrer } from './referrer';
import type { Touchpoint, TouchpointDims, TouchpointOrigin, TrackingLinkInfo } from './touchpoint-types';
import { getParam, parseLandingUrl } from './url-params';

export interface TouchpointInput {
  /** The page URL of the session's first event (absolute; anything else counts as no parameters). */
  pageUrl: string;
  /** That event's `document.referrer` (`""` when none). */
  referrer: string;
  /** The store's own hosts; a referrer from one of them (with or without `www.`) is not a source. */
  ownHosts: readonly string[];
  /** Looks a tracking-link code up (docs/product.md, Tracking links); `undefined` for an unknown code. */
  resolveLink: (code: string) => TrackingLinkInfo | undefined;
}

/** Tracking-link parameter (docs/product.md, Tracking links). */
export const LINK_PARAM = 'ab_lnk';

/** Click-id parameters in docs/product.md (Sessions and touchpoints)'s order of precedence, with the source/medium each implies. */
export const CLICK_IDS: readonly { param: string; source: string; medium: string }[] = [
  { param: 'gclid', source: 'google', medium: 'cpc' },
  { param: 'gbraid', source: 'google', medium: 'cpc' },
  { param: 'wbraid', source: 'google', medium: 'cpc' },
  { param: 'msclkid', source: 'bing', medium: 'cpc' },
  { param: 'ttclid', source: 'tiktok', medium: 'cpc' },
  { param: 'li_fat_id', source: 'linkedin', medium: 'cpc' },
  { param: 'twclid', source: 'twitter', medium: 'cpc' },
  { param: 'epik', source: 'pinterest', medium: 'cpc' },
  { param: 'ScCid', source: 'snapchat', medium: 'cpc' },
  { param: 'fbclid', source: 'facebook', medium: 'social' },
];

export const NOT_SET = '(not set)';
export const DIRECT_SOURCE = '(direct)';
export const DIRECT_MEDIUM = '(none)';
export const DIRECT_CAMPAIGN = '(direct)';
export const ORGANIC_CAMPAIGN = '(organic)';
export const REFERRAL_CAMPAIGN = '(referral)';

/** Lower-cases and trims a source/medium/campaign value; blank becomes `undefined` (absent). */
function norm(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  return v === '' ? undefined : v;
}

interface Attribution {
  origin: TouchpointOrigin;
  source: string;
  medium: string;
  /** The origin's campaign when the URL has no `utm_campaign` (a link always uses its own campaign). */
  campaign: string;
  linkCode: string;
}

/**
 * Derives the touchpoint of a landing page view, in docs/product.md (Sessions and touchpoints)'s order of precedence:
 * 1. `ab_lnk=<code>` that `resolveLink` knows → the link's source/medium/campaign (origin `link`; an
 *    unknown code is ignored and the next rules apply);
 * 2. `utm_source` or `utm_medium` present → those, a missing one `(not set)` (origin `utm`);
 * 3. the first click id in {@link CLICK_IDS} order → its source/medium (origin `click_id`);
 * 4. the referrer: search engine → `<engine>`/`organic`, social network → `<network>`/`social`, other
 *    host → `<host>`/`referral`; the store's own hosts (`ownHosts` and the landing URL's host) are skipped;
 * 5. `(direct)`/`(none)`.
 * Campaign: the link's campaign for origin `link`; otherwise `utm_campaign` when present (for every origin,
 * as the rules say), else `(not set)` (utm, click id), `(organic)` (search), `(referral)` (social, other) or
 * `(direct)`. Source, medium and campaign are lower-cased and trimmed; a blank value counts as absent.
 * `content`/`term`/`utmId` are the trimmed `utm_content`/`utm_term`/`utm_id` whatever the origin (case
 * kept). `clickIdParam` names the first click id on the URL even when a link or UTMs win, so the platform
 * follows the click id. The ad ids (`campaignId`, `adSetId`, `adId`) come from the URL whatever the origin
 * (see ad-ids.ts). An unparsable or relative page URL has no parameters and landing page `/`.
 */
export function deriveTouchpoint(input: TouchpointInput): Touchpoint {
  const parsed = parseLandingUrl(input.pageUrl);
  const params: ReadonlyMap<string, string> = parsed?.params ?? new Map<string, string>();
  const landingPage = parsed?.path ?? '/';

  const clickId = CLICK_IDS.find((c) => getParam(params, c.param) !== undefined);
  const utmCampaign = norm(getParam(params, 'utm_campaign'));
  const chosen = chooseAttribution(input, params, parsed?.host, clickId);
  const campaign = clip(chosen.origin === 'link' ? chosen.campaign : (utmCampaign ?? chosen.campaign));

  const source = clip(chosen.source);
  const medium = clip(chosen.medium);
  const channel = classifyChannel({ source, medium, campaign });
  const clickIdParam = clickId?.param ?? '';
  const ids = adIdsOf(params);
  return {
    origin: chosen.origin,
    channel,
    source,
    medium,
    campaign,
    landingPage: clip(landingPage),
    platform: inferPlatform({ source, medium, channel, clickIdParam }),
    content: clip(getParam(params, 'utm_content') ?? ''),
    term: clip(getParam(params, 'utm_term') ?? ''),
    utmId: clip(getParam(params, 'utm_id') ?? ''),
    linkCode: clip(chosen.linkCode),
    clickIdParam,
    ...ids,
  };
}

/**
 * Touchpoint values are rollup keys: PostgreSQL index entries hold about 2.7 KB, and a URL can carry a
 * parameter of any length. Longer values are cut (the same way every time, so recomputation agrees), in UTF-8
 * bytes: four keys of 500 characters of CJK text would be 6 KB. ASCII values are cut at 500 characters as before.
 */
export const MAX_DIMENSION_BYTES = 500;
function clip(value: string): string {
  // A UTF-16 code unit takes at most 3 bytes: most values are kept without counting.
  if (value.length * 3 <= MAX_DIMENSION_BYTES) return value;
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // A surrogate pair is one 4-byte character, never cut in two (PostgreSQL's JSON input refuses a lone one).
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < value.length;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > MAX_DIMENSION_BYTES) return value.slice(0, i);
    bytes += size;
    if (pair) i++;
  }
  return value;
}

function chooseAttribution(
  input: TouchpointInput,
  params: ReadonlyMap<string, string>,
  landingHost: string | undefined,
  clickId: (typeof CLICK_IDS)[number] | undefined,
): Attribution {
  // 1. Tracking link. The code is an identifier: trimmed, case kept.
  const code = getParam(params, LINK_PARAM);
  if (code !== undefined) {
    const link = input.resolveLink(code);
    if (link !== undefined) {
      return {
        origin: 'link',
        source: norm(link.source) ?? NOT_SET,
        medium: norm(link.medium) ?? NOT_SET,
        campaign: norm(link.campaign) ?? NOT_SET,
        linkCode: code,
      };
    }
  }

  // 2. UTM parameters.
  const utmSource = norm(getParam(params, 'utm_source'));
  const utmMedium = norm(getParam(params, 'utm_medium'));
  if (utmSource !== undefined || utmMedium !== undefined) {
    return {
      origin: 'utm',
      source: utmSource ?? NOT_SET,
      medium: utmMedium ?? NOT_SET,
      campaign: NOT_SET,
      linkCode: '',
    };
  }

  // 3. Click ids.
  if (clickId !== undefined) {
    return { origin: 'click_id', source: clickId.source, medium: clickId.medium, campaign: NOT_SET, linkCode: '' };
  }

  // 4. Referrer, unless it is the store itself.
  const ownHosts = landingHost === undefined ? input.ownHosts : [...input.ownHosts, landingHost];
  const ref = classifyReferrer(input.referrer, ownHosts);
  switch (ref.kind) {
    case 'search':
      return { origin: 'search', source: ref.name, medium: 'organic', campaign: ORGANIC_CAMPAIGN, linkCode: '' };
    case 'social':
      return { origin: 'social', source: ref.name, medium: 'social', campaign: REFERRAL_CAMPAIGN, linkCode: '' };
    case 'other':
      return { origin: 'referral', source: ref.name, medium: 'referral', campaign: REFERRAL_CAMPAIGN, linkCode: '' };
    case 'self':
    case 'none':
      break;
  }

  // 5. Direct.
  return { origin: 'direct', source: DIRECT_SOURCE, medium: DIRECT_MEDIUM, campaign: DIRECT_CAMPAIGN, linkCode: '' };
}

/**
 * The touchpoint a page view's URL/referrer names, or `null` when it names none (it would be direct,
 * including self-referrals). The sessionizer starts a new session when this is non-null and not
 * {@link sameSource} as the current session's touchpoint (docs/product.md, Sessions and touchpoints).
 */
export function landingSignal(input: TouchpointInput): Touchpoint | null {
  const touchpoint = deriveTouchpoint(input);
  return touchpoint.origin === 'direct' ? null : touchpoint;
}

/** Whether two touchpoints name the same source: equal source, medium and campaign. */
export function sameSource(a: TouchpointDims, b: TouchpointDims): boolean {
  return a.source === b.source && a.medium === b.medium && a.campaign === b.campaign;
}
