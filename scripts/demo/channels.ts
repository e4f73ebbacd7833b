/**
 * Where a session comes from (its touch): the mix of sources of first and later sessions, and for each source the
 * landing URL's query string (utm values, click ids), the referrer, the kind of landing page and the purchase
 * intent of its visitors. To add a source: a name in `TOUCH_KINDS`, its weights in both mixes, a case in
 * `chooseTouch` (a paid one is a campaign of `campaigns.ts`).
 */
import type { AdDef, CampaignDef, LandingKind, Platform } from './campaigns';
import { isActive } from './campaigns';
import type { PlannerContext } from './context';
import { flat, withParams } from './format';
import type { Person } from './persons';
import { B64URL, Distribution, type Rng } from './random';
import { DAY } from './time';

/** The source of a session, as its landing page shows it. */
export interface Touch {
  /** Channel label for the summary (`google_cpc`, `facebook_paid`, `organic_search`, `email`, ...). */
  label: string;
  /** Query string of the landing URL (`""` or `?...`). */
  query: string;
  referrer: string;
  landing: LandingKind;
  /** Collection of the landing page when it is a collection. */
  collection?: string;
  ad?: AdDef;
  /** utm_campaign (emails), for the discount code. */
  campaign?: string;
  /** Purchase propensity, relative. */
  intent: number;
}

/** Session sources; the paid ones are campaign keys. */
const TOUCH_KINDS = [
  'brand_search',
  'generic_search',
  'shopping_feed',
  'spring_sale',
  'prospecting_broad',
  'retargeting_30d',
  'ugc_creators',
  'organic_search',
  'organic_social',
  'referral',
  'direct',
  'email',
  'sms_closer',
] as const;
/**
 * Source mix of a person's first session and of the later ones, by `TOUCH_KINDS` index. Outside the spring sale
 * flight its share goes to prospecting (first sessions); email needs a subscriber (60 after an abandoned checkout).
 */
const FIRST_TOUCH_WEIGHTS = [3, 7, 9, 16, 9, 0, 7, 18, 8, 6, 11, 10, 0];
const RETURN_TOUCH_WEIGHTS = [12, 0, 3, 4, 2, 14, 2, 14, 5, 3, 24, 28, 0];
/** The SMS closer's share of return visits when the option is on (last in the draw: the streams without it stay the same). */
const SMS_CLOSER_WEIGHT = 30;

const SEARCH_ENGINES = new Distribution(
  ['https://www.google.com/', 'https://www.bing.com/', 'https://duckduckgo.com/'],
  [85, 8, 7],
);
const SOCIAL_NETWORKS = new Distribution(['facebook', 'instagram', 'pinterest'], [50, 32, 18]);
const ORGANIC_LANDINGS = new Distribution<LandingKind>(['home', 'product', 'collection'], [40, 35, 25]);
const SOCIAL_LANDINGS = new Distribution<LandingKind>(['home', 'product', 'collection'], [30, 50, 20]);
const DIRECT_LANDINGS = new Distribution<LandingKind>(['home', 'product'], [75, 25]);
const REFERRING_SITES: { ref: string; landing: LandingKind }[] = [
  { ref: 'https://www.thestylebrief.example/best-basics-2025/', landing: 'collection' },
  { ref: 'https://blog.outdoorweekly.example/gear/rain-jackets-tested', landing: 'product' },
  { ref: 'https://www.reddit.com/r/malefashionadvice/comments/1c2x3v4/', landing: 'product' },
];

const CLICK_IDS: Record<Platform, { key: string; prefix: string; length: number }> = {
  google: { key: 'gclid', prefix: 'Cj0KCQjw', length: 84 },
  facebook: { key: 'fbclid', prefix: 'IwZXh0bgNhZW0BMABhZGlkA', length: 60 },
  tiktok: { key: 'ttclid', prefix: 'E.C.P.', length: 72 },
};
const FACEBOOK_REFERRERS = ['https://l.facebook.com/', 'https://m.facebook.com/', ''];

function randomQuery(rng: Rng, len: number): string {
  return rng.chars(len, B64URL);
}

/**
 * The source of session `i` (0: the first) of `person` at `at`: acquisition mix for the first one, returning mix
 * afterwards; email only for subscribers, and likely right after an abandoned checkout.
 */
export function chooseTouch(
  ctx: Pick<PlannerContext, 'campaignByKey' | 'startMs' | 'endMs' | 'days' | 'smsCloser'>,
  rng: Rng,
  person: Pick<Person, 'subscribedAt' | 'abandonedAt'>,
  i: number,
  at: number,
): Touch {
  const subscribed = person.subscribedAt !== null && person.subscribedAt <= at;
  const abandoned = person.abandonedAt !== null && at - person.abandonedAt < 3 * DAY && subscribed;
  const sale = isActive(ctx.campaignByKey.get('spring_sale')!, ctx, at);
  const weights = [...(i === 0 ? FIRST_TOUCH_WEIGHTS : RETURN_TOUCH_WEIGHTS)];
  if (!sale) {
    if (i === 0) weights[4] = weights[4]! + weights[3]!;
    weights[3] = 0;
  }
  weights[11] = abandoned ? 60 : subscribed ? weights[11]! : 0;
  if (ctx.smsCloser && i > 0) weights[12] = SMS_CLOSER_WEIGHT;
  const kind = rng.weighted(TOUCH_KINDS, weights);
  switch (kind) {
    case 'brand_search':
    case 'generic_search':
    case 'shopping_feed':
    case 'spring_sale':
    case 'prospecting_broad':
    case 'retargeting_30d':
    case 'ugc_creators':
      return paidTouch(rng, ctx.campaignByKey.get(kind)!);
    case 'organic_search':
      return organicSearchTouch(rng);
    case 'organic_social':
      return organicSocialTouch(rng);
    case 'referral':
      return referralTouch(rng);
    case 'email':
      return emailTouch(rng, person.subscribedAt, at, abandoned, sale);
    case 'direct':
      return directTouch(rng, i > 0);
    case 'sms_closer':
      return smsCloserTouch(rng);
  }
}

/** A click on an ad: its utm parameters (static per ad, but for the keyword) and a fresh click id. */
export function paidTouch(rng: Rng, c: CampaignDef): Touch {
  const a = rng.pick(c.ads);
  const clickIdOnly = rng.chance(c.clickIdOnly);
  const click = CLICK_IDS[c.platform];
  // Click ids are base64url: nothing to escape.
  const clickParam = flat(click.key, '=', click.prefix, rng.chars(click.length, B64URL));
  const query = clickIdOnly
    ? flat('?', clickParam)
    : flat(a.utmQuery, a.termParams ? rng.pick(a.termParams) : '', a.adIdParams, '&', clickParam);
  let referrer = '';
  let label: string;
  switch (c.platform) {
    case 'google':
      referrer = 'https://www.google.com/';
      label = clickIdOnly ? 'google_cpc_gclid_only' : 'google_cpc';
      break;
    case 'facebook':
      referrer = a.source === 'instagram' ? 'https://l.instagram.com/' : rng.pick(FACEBOOK_REFERRERS);
      label = a.source === 'instagram' ? 'instagram_paid' : 'facebook_paid';
      break;
    case 'tiktok':
      referrer = rng.chance(0.6) ? 'https://www.tiktok.com/' : '';
      label = clickIdOnly ? 'tiktok_ttclid_only' : 'tiktok_paid';
      break;
  }
  return {
    label,
    query,
    referrer,
    landing: c.landing,
    collection: a.collection ?? (c.landing === 'sale' ? 'spring-sale' : undefined),
    ad: a,
    intent: c.intent,
  };
}

/** A search result click: the engine is the referrer, no parameters. */
function organicSearchTouch(rng: Rng): Touch {
  const referrer = SEARCH_ENGINES.sample(rng);
  return {
    label: 'organic_search',
    query: '',
    referrer,
    landing: ORGANIC_LANDINGS.sample(rng),
    intent: 1,
  };
}

/** A post on a social network; Meta adds fbclid to organic outbound links too. */
/** Creators who post the store's links (utm_campaign of their posts), with how often each one's post is the source. */
const CREATORS = new Distribution(['fitwithmia', 'dailyfits', 'trailtom'], [50, 30, 20]);

function organicSocialTouch(rng: Rng): Touch {
  const network = SOCIAL_NETWORKS.sample(rng);
  // A creator's post on Instagram: the link says utm_medium=influencer, as the store's creator links do; its
  // followers land on the product and buy more often than other social visitors.
  if (network === 'instagram' && rng.chance(0.35)) {
    const creator = CREATORS.sample(rng);
    return {
      label: 'influencer',
      query: withParams([
        ['utm_source', 'instagram'],
        ['utm_medium', 'influencer'],
        ['utm_campaign', creator],
      ]),
      referrer: 'https://l.instagram.com/',
      landing: 'product',
      intent: 1.2,
    };
  }
  const referrer =
    network === 'facebook'
      ? 'https://l.facebook.com/'
      : network === 'instagram'
        ? 'https://l.instagram.com/'
        : 'https://www.pinterest.com/';
  const query =
    network !== 'pinterest' && rng.chance(0.5) ? withParams([['fbclid', `IwAR${randomQuery(rng, 56)}`]]) : '';
  return {
    label: 'organic_social',
    query,
    referrer,
    landing: SOCIAL_LANDINGS.sample(rng),
    intent: 0.5,
  };
}

/** A link on a blog or a forum. */
function referralTouch(rng: Rng): Touch {
  const site = rng.pick(REFERRING_SITES);
  return { label: 'referral', query: '', referrer: site.ref, landing: site.landing, intent: 1.1 };
}

/**
 * A click in one of the store's emails (Klaviyo): the abandoned-checkout flow, the welcome series in the first
 * 10 days of a subscription, the sale launch during the sale, else the weekly newsletter.
 */
function emailTouch(rng: Rng, subscribedAt: number | null, at: number, abandoned: boolean, sale: boolean): Touch {
  const campaignName = abandoned
    ? 'abandoned_checkout'
    : subscribedAt !== null && at - subscribedAt < 10 * DAY
      ? 'welcome_series'
      : sale && rng.chance(0.5)
        ? 'spring_sale_launch'
        : 'weekly_newsletter';
  const params: [string, string][] = [
    ['utm_source', 'klaviyo'],
    ['utm_medium', 'email'],
    ['utm_campaign', campaignName],
    ['utm_content', rng.pick(['hero_button', 'product_grid', 'footer_link'])],
    ['_kx', `${randomQuery(rng, 22)}.${rng.pick(['Xt9kLm', 'Rq4wPz', 'Ub7nHs'])}`],
  ];
  return {
    label: 'email',
    query: withParams(params),
    referrer: rng.chance(0.15) ? 'https://mail.google.com/' : '',
    landing: abandoned
      ? 'home'
      : campaignName === 'spring_sale_launch'
        ? 'sale'
        : rng.pick(['home', 'collection', 'product']),
    collection: campaignName === 'spring_sale_launch' ? 'spring-sale' : undefined,
    campaign: campaignName,
    intent: abandoned ? 4 : 2.2,
  };
}

/** A typed URL or a bookmark; returning visitors buy a little more often. */
function directTouch(rng: Rng, returning: boolean): Touch {
  return {
    label: 'direct',
    query: '',
    referrer: '',
    landing: DIRECT_LANDINGS.sample(rng),
    intent: returning ? 1.5 : 1,
  };
}

/** A link in a text message to a returning visitor, whose visitors buy six times as often as the average one. */
function smsCloserTouch(rng: Rng): Touch {
  const params: [string, string][] = [
    ['utm_source', 'sms'],
    ['utm_medium', 'sms'],
    ['utm_campaign', rng.pick(['back_in_stock', 'cart_reminder', 'vip_early_access'])],
  ];
  return { label: 'sms', query: withParams(params), referrer: '', landing: 'product', intent: 6 };
}
