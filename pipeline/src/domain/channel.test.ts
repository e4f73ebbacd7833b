import { CHANNELS, type Channel, type Platform } from '../../../contracts/src/channels';
import {
  classifyChannel,
  inferPlatform,
  isSourceInCategory,
  PAID_MEDIUM,
  platformOfClickId,
  SHOP_CAMPAIGN,
} from './channel';
import channelSources from './channel-sources.json';

describe('classifyChannel (GA4 default channel group)', () => {
  it.each<[string, string, string, Channel]>([
    // 1. Direct
    ['(direct)', '(none)', '(direct)', 'direct'],
    ['(direct)', '(not set)', '(not set)', 'direct'],
    ['(DIRECT)', ' (None) ', '', 'direct'],
    ['(direct)', 'cpc', '', 'paid_other'],
    // 2. Cross-network (before everything paid)
    ['google', 'cpc', 'PMax Cross-Network Q3', 'cross_network'],
    ['google', 'cpc', 'cross-network shopping', 'cross_network'],
    ['(not set)', '(not set)', 'cross-network', 'cross_network'],
    // 3. Paid shopping
    ['google', 'cpc', 'brand shopping', 'paid_shopping'],
    ['google', 'cpc', 'Brand Shopping', 'paid_shopping'],
    ['google', 'cpc', 'shop-summer', 'paid_shopping'],
    ['google', 'cpc', 'summer_shop', 'paid_shopping'],
    ['igshopping', 'paid', '', 'paid_shopping'],
    ['google shopping', 'cpc', '', 'paid_shopping'],
    ['amazon', 'ppc', '', 'paid_shopping'],
    ['google', 'cpc', 'eshop', 'paid_shopping'], // [^a-df-z] lets "e" (e-shop) precede "shop" ...
    ['google', 'cpc', 'workshop', 'paid_search'], // ... but not "k"
    // 4. Paid search
    ['google', 'cpc', '(not set)', 'paid_search'],
    ['Google', 'CPC', 'Brand', 'paid_search'],
    ['bing', 'ppc', 'x', 'paid_search'],
    ['baidu', 'paid_search', 'x', 'paid_search'],
    ['google', 'retargeting', 'x', 'paid_search'],
    ['google', 'cpm', 'x', 'paid_search'], // cpm matches P, and Paid Search comes before Display
    // 5. Paid social
    ['facebook', 'paid', 'x', 'paid_social'],
    ['fb', 'cpc', 'x', 'paid_social'],
    ['ig', 'paid_social', 'x', 'paid_social'],
    ['tiktok', 'cpc', 'x', 'paid_social'],
    ['linkedin', 'cpc', 'x', 'paid_social'],
    ['x', 'cpc', 'x', 'paid_social'],
    // 6. Paid video
    ['youtube', 'cpv', 'x', 'paid_video'],
    ['vimeo', 'paid', 'x', 'paid_video'],
    // 7. Display
    ['criteo', 'display', 'x', 'display'],
    ['newsletter-partner', 'banner', 'x', 'display'],
    ['dv360', 'Interstitial', 'x', 'display'],
    ['dv360', 'expandable', 'x', 'display'],
    ['dv360', 'cpm', 'x', 'display'],
    // 8. Paid other
    ['criteo', 'cpc', 'x', 'paid_other'],
    ['(not set)', 'paid', '(not set)', 'paid_other'],
    ['partner', 'paidsocial', 'x', 'paid_other'],
    // 9. Organic shopping
    ['amazon', 'referral', '(referral)', 'organic_shopping'],
    ['checkout.shopify.com', 'referral', '(referral)', 'organic_shopping'],
    ['newsletter', 'email', 'holiday shop', 'organic_shopping'],
    // 10. Organic social
    ['facebook', 'social', '(referral)', 'organic_social'],
    ['twitter', 'social', '(referral)', 'organic_social'],
    ['youtube', 'social', '(referral)', 'organic_social'], // social medium wins over the video list
    ['instagram', 'referral', 'x', 'organic_social'],
    ['quora.com', 'referral', '(referral)', 'organic_social'],
    ['partner', 'social-media', 'x', 'organic_social'],
    ['partner', 'social network', 'x', 'organic_social'],
    ['partner', 'sm', 'x', 'organic_social'],
    // 11. Organic video
    ['youtube', 'referral', 'x', 'organic_video'],
    ['vimeo.com', 'referral', '(referral)', 'organic_video'],
    ['partner', 'video-embed', 'x', 'organic_video'],
    // 12. Organic search
    ['google', 'organic', '(organic)', 'organic_search'],
    ['bing', 'referral', '(referral)', 'organic_search'],
    ['somewhere', 'organic', 'x', 'organic_search'],
    // 13. Referral
    ['someblog.com', 'referral', '(referral)', 'referral'],
    ['partner', 'app', 'x', 'referral'],
    ['partner', 'link', 'x', 'referral'],
    // 14. Email
    ['newsletter', 'email', 'spring', 'email'],
    ['klaviyo', 'E-Mail', 'x', 'email'],
    ['email', 'whatever', 'x', 'email'],
    ['partner', 'e_mail', 'x', 'email'],
    ['partner', 'e mail', 'x', 'email'],
    ['(not set)', 'email', '(not set)', 'email'],
    // 15. Affiliates
    ['impact', 'affiliate', 'x', 'affiliates'],
    // 16. Audio
    ['spotify', 'audio', 'x', 'audio'],
    // 17. SMS
    ['attentive', 'sms', 'x', 'sms'],
    ['sms', 'text', 'x', 'sms'],
    // 18. Mobile push
    ['onesignal', 'web-push', 'x', 'mobile_push'],
    ['app', 'mobile', 'x', 'mobile_push'],
    ['app', 'in-app-notification', 'x', 'mobile_push'],
    ['firebase', 'whatever', 'x', 'mobile_push'],
    // Unassigned
    ['partner', 'affiliates', 'x', 'unassigned'],
    ['partner', 'print', 'x', 'unassigned'],
    ['(not set)', '(not set)', '(not set)', 'unassigned'],
    ['', '', '', 'unassigned'],
  ])('%j / %j / %j → %s', (source, medium, campaign, expected) => {
    expect(classifyChannel({ source, medium, campaign })).toBe(expected);
  });

  it('only returns known channel slugs', () => {
    expect(CHANNELS).toContain(classifyChannel({ source: 'a', medium: 'b', campaign: 'c' }));
  });
});

describe('GA4 regexes', () => {
  it.each([
    ['cpc', true],
    ['cpm', true],
    ['cpv', true],
    ['ppc', true],
    ['paid', true],
    ['paidsearch', true],
    ['PAID_social', true],
    ['retargeting', true],
    ['acpx', true],
    ['organic', false],
    ['ppc2', false],
    ['unpaid', false],
    ['email', false],
  ])('paid medium %s: %s', (medium, expected) => {
    expect(PAID_MEDIUM.test(medium)).toBe(expected);
  });

  it.each([
    ['shop', true],
    ['shopping', true],
    ['brand shopping', true],
    ['eshop', true],
    ['e-shop', true],
    ['2024_shop_sale', true],
    ['workshop', false],
    ['bishop', false],
    ['brand', false],
  ])('shop campaign %s: %s', (campaign, expected) => {
    expect(SHOP_CAMPAIGN.test(campaign)).toBe(expected);
  });
});

describe('inferPlatform', () => {
  it.each<[string, string, Channel, string, Platform]>([
    // click id decides, even on unpaid channels
    ['facebook', 'social', 'organic_social', 'fbclid', 'facebook'],
    ['google', 'cpc', 'paid_search', 'gclid', 'google'],
    ['google', 'cpc', 'paid_search', 'gbraid', 'google'],
    ['google', 'cpc', 'paid_search', 'wbraid', 'google'],
    ['bing', 'cpc', 'paid_search', 'msclkid', 'bing'],
    ['tiktok', 'cpc', 'paid_social', 'ttclid', 'tiktok'],
    ['linkedin', 'cpc', 'paid_social', 'li_fat_id', 'linkedin'],
    ['twitter', 'cpc', 'paid_social', 'twclid', 'twitter'],
    ['pinterest', 'cpc', 'paid_social', 'epik', 'pinterest'],
    ['snapchat', 'cpc', 'paid_social', 'ScCid', 'snapchat'],
    ['newsletter', 'email', 'email', 'gclid', 'google'],
    ['facebook', 'cpc', 'paid_social', 'gclid', 'google'], // click id before source
    ['google', 'organic', 'organic_search', 'unknown_id', 'google'], // unknown click id: fall back to source
    // paid without click id: source
    ['google', 'cpc', 'paid_search', '', 'google'],
    ['adwords', 'cpc', 'paid_other', '', 'google'],
    ['youtube', 'cpv', 'paid_video', '', 'google'],
    ['Facebook', 'paid', 'paid_social', '', 'facebook'],
    ['fb', 'cpc', 'paid_social', '', 'facebook'],
    ['instagram', 'cpc', 'paid_social', '', 'facebook'],
    ['ig', 'cpc', 'paid_social', '', 'facebook'],
    ['meta', 'cpc', 'paid_social', '', 'facebook'],
    ['tiktok', 'cpc', 'paid_social', '', 'tiktok'],
    ['bing', 'cpc', 'paid_search', '', 'bing'],
    ['microsoft', 'cpc', 'paid_other', '', 'bing'],
    ['pinterest', 'cpc', 'paid_social', '', 'pinterest'],
    ['snapchat', 'cpc', 'paid_social', '', 'snapchat'],
    ['linkedin', 'cpc', 'paid_social', '', 'linkedin'],
    ['twitter', 'cpc', 'paid_social', '', 'twitter'],
    ['x', 'cpc', 'paid_social', '', 'twitter'],
    ['m.facebook.com', 'cpc', 'paid_social', '', 'facebook'],
    ['www.google.co.uk', 'cpc', 'paid_other', '', 'google'],
    ['google', 'display', 'display', '', 'google'],
    ['google', 'cpc', 'cross_network', '', 'google'],
    ['google', 'cpc', 'paid_shopping', '', 'google'],
    ['google', 'whatever', 'cross_network', '', 'google'], // paid by channel alone
    ['criteo', 'cpc', 'paid_other', '', ''],
    ['example.com', 'cpc', 'paid_other', '', ''],
    // unpaid, no click id
    ['google', 'organic', 'organic_search', '', ''],
    ['facebook', 'social', 'organic_social', '', ''],
    ['facebook', 'referral', 'organic_social', '', ''],
    ['(direct)', '(none)', 'direct', '', ''],
    ['newsletter', 'email', 'email', '', ''],
  ])('%j / %j / %s / %j → %j', (source, medium, channel, clickIdParam, expected) => {
    expect(inferPlatform({ source, medium, channel, clickIdParam })).toBe(expected);
  });

  it.each([
    ['GCLID', 'google'],
    ['sccid', 'snapchat'],
    ['fbclid', 'facebook'],
    ['utm_source', ''],
    ['', ''],
  ])('platformOfClickId(%j) = %j', (param, expected) => {
    expect(platformOfClickId(param)).toBe(expected);
  });
});

describe('source lists (channel-sources.json)', () => {
  const lists = channelSources.sourceCategories;
  const categories = ['search', 'social', 'shopping', 'video'] as const;

  it.each(categories)('%s list is non-empty, lower-case, trimmed and without duplicates', (category) => {
    const list: readonly string[] = lists[category];
    expect(list.length).toBeGreaterThan(10);
    for (const source of list) expect(source).toBe(source.trim().toLowerCase());
    expect(new Set(list).size).toBe(list.length);
  });

  it('puts every source in at most one category', () => {
    const seen = new Map<string, string>();
    for (const category of categories) {
      for (const source of lists[category]) {
        expect(seen.get(source)).toBeUndefined();
        seen.set(source, category);
      }
    }
  });

  it.each([
    ['google', 'search'],
    ['bing', 'search'],
    ['yahoo', 'search'],
    ['baidu', 'search'],
    ['duckduckgo', 'search'],
    ['yandex', 'search'],
    ['ecosia', 'search'],
    ['naver', 'search'],
    ['ask', 'search'],
    ['facebook', 'social'],
    ['fb', 'social'],
    ['instagram', 'social'],
    ['ig', 'social'],
    ['meta', 'social'],
    ['twitter', 'social'],
    ['x', 'social'],
    ['t.co', 'social'],
    ['linkedin', 'social'],
    ['pinterest', 'social'],
    ['reddit', 'social'],
    ['tiktok', 'social'],
    ['snapchat', 'social'],
    ['whatsapp', 'social'],
    ['google shopping', 'shopping'],
    ['igshopping', 'shopping'],
    ['shopify', 'shopping'],
    ['amazon', 'shopping'],
    ['youtube', 'video'],
    ['vimeo', 'video'],
    ['twitch', 'video'],
  ] as const)('%s is in the %s list', (source, category) => {
    expect(isSourceInCategory(source, category)).toBe(true);
  });

  it('has every network name the referrer tables produce in the matching list', () => {
    for (const name of Object.keys(channelSources.referrerHosts.search)) {
      expect(isSourceInCategory(name, 'search')).toBe(true);
    }
    for (const name of Object.keys(channelSources.referrerHosts.social)) {
      expect(isSourceInCategory(name, 'social') || isSourceInCategory(name, 'video')).toBe(true);
    }
  });
});
